import { z } from 'zod';
import type { Db } from '../../platform/storage/index.js';
import { AppError, fieldProblemsFromZod } from '../../platform/errors/index.js';
import { LanguageTagSchema } from '../../platform/contract/index.js';
import { newId, nowIso } from './record-ids.js';
import { DomainSchema, VerificationMethodInputSchema, type WebsiteRecord } from './record-types.js';
import { getOrganization } from './organizations.js';
import { assertWithinLimit } from '../plans/index.js';

export const CreateWebsiteSchema = z.strictObject({
  organizationId: z.string().min(1),
  domain: DomainSchema,
  name: z.string().trim().min(1, 'must not be empty').max(200),
  defaultLanguage: LanguageTagSchema.default('en'),
  /** Mark the website verified by this method at once (self-hosters who own their domain). */
  verifiedMethod: VerificationMethodInputSchema.optional(),
});

export function createWebsite(
  db: Db,
  input: z.input<typeof CreateWebsiteSchema>,
  now = Date.now(),
): WebsiteRecord & { verification: { method: string | null; state: string } } {
  const parsed = CreateWebsiteSchema.safeParse(input);
  if (!parsed.success)
    throw new AppError('validation.failed', 'The website is not valid; see details.fields.', {
      details: { fields: fieldProblemsFromZod(parsed.error.issues) },
    });
  const { organizationId, domain, name, defaultLanguage, verifiedMethod } = parsed.data;
  return db
    .transaction(() => {
      if (!getOrganization(db, organizationId))
        throw new AppError(
          'organization.not_found',
          `No organization ${organizationId}: see \`nodectl admin org list\`.`,
        );
      assertWithinLimit(db, organizationId, 'websites', { nowMs: now });
      if (db.prepare('SELECT 1 FROM websites WHERE domain = ?').get(domain)) {
        throw new AppError('validation.failed', `The domain ${domain} already belongs to a website.`, {
          details: { fields: [{ path: 'domain', message: 'already registered' }] },
        });
      }
      const id = newId('web');
      const createdAt = nowIso(now);
      db.prepare(
        'INSERT INTO websites (id, organization_id, domain, name, default_language, created_at) VALUES (?, ?, ?, ?, ?, ?)',
      ).run(id, organizationId, domain, name, defaultLanguage, createdAt);
      const state = verifiedMethod ? 'verified' : 'pending';
      db.prepare(
        'INSERT INTO verifications (website_id, method, state, last_checked_at, updated_at) VALUES (?, ?, ?, ?, ?)',
      ).run(id, verifiedMethod ?? null, state, verifiedMethod ? createdAt : null, createdAt);
      return {
        id,
        organizationId,
        domain,
        name,
        defaultLanguage,
        createdAt,
        verification: { method: verifiedMethod ?? null, state },
      };
    })
    .immediate();
}

const SELECT =
  'SELECT id, organization_id AS organizationId, domain, name, default_language AS defaultLanguage, created_at AS createdAt FROM websites';

export function getWebsite(db: Db, id: string): WebsiteRecord | undefined {
  return db.prepare(`${SELECT} WHERE id = ?`).get(id) as WebsiteRecord | undefined;
}

export function listWebsites(db: Db, organizationId?: string): WebsiteRecord[] {
  return (
    organizationId
      ? db.prepare(`${SELECT} WHERE organization_id = ? ORDER BY created_at, id`).all(organizationId)
      : db.prepare(`${SELECT} ORDER BY created_at, id`).all()
  ) as WebsiteRecord[];
}
