import { z } from 'zod';
import type { Db } from '../storage/sqlite.js';
import { AppError, fieldProblemsFromZod } from '../errors/app-error.js';
import { newId, nowIso } from './ids.js';
import { EmailSchema, PlanSchema, type OrganizationRecord } from './records.js';
import { findUserByEmail } from './users.js';

export const CreateOrganizationSchema = z.strictObject({
  name: z.string().trim().min(1, 'must not be empty').max(200),
  ownerEmail: EmailSchema,
  plan: PlanSchema.default('free'),
});

/** Lowercase ascii words joined by dashes; a numeric suffix keeps it unique. */
function slugFor(db: Db, name: string): string {
  const base = name.normalize('NFKD').replace(/[^\w\s-]/g, '').trim().toLowerCase().replace(/[\s_-]+/g, '-').slice(0, 48) || 'org';
  for (let n = 1; ; n++) {
    const slug = n === 1 ? base : `${base}-${n}`;
    if (!db.prepare('SELECT 1 FROM organizations WHERE slug = ?').get(slug)) return slug;
  }
}

/** Creates an organization and makes the owner (an existing user) its organization_owner. */
export function createOrganization(db: Db, input: z.input<typeof CreateOrganizationSchema>, now = Date.now()): OrganizationRecord {
  const parsed = CreateOrganizationSchema.safeParse(input);
  if (!parsed.success) throw new AppError('validation.failed', 'The organization is not valid; see details.fields.', { details: { fields: fieldProblemsFromZod(parsed.error.issues) } });
  const { name, ownerEmail, plan } = parsed.data;
  return db.transaction(() => {
    const owner = findUserByEmail(db, ownerEmail);
    if (!owner) throw new AppError('user.not_found', `No user with email ${ownerEmail}: create it first with \`nodectl admin user create\`.`);
    const id = newId('org');
    const createdAt = nowIso(now);
    const slug = slugFor(db, name);
    db.prepare('INSERT INTO organizations (id, name, slug, plan, created_at) VALUES (?, ?, ?, ?, ?)').run(id, name, slug, plan, createdAt);
    db.prepare(`INSERT INTO members (organization_id, user_id, role, created_at) VALUES (?, ?, 'organization_owner', ?)`).run(id, owner.id, createdAt);
    return { id, name, slug, plan, createdAt };
  }).immediate();
}

export function getOrganization(db: Db, id: string): OrganizationRecord | undefined {
  return db.prepare('SELECT id, name, slug, plan, created_at AS createdAt FROM organizations WHERE id = ?').get(id) as OrganizationRecord | undefined;
}

export function listOrganizations(db: Db): OrganizationRecord[] {
  return db.prepare('SELECT id, name, slug, plan, created_at AS createdAt FROM organizations ORDER BY created_at, id').all() as OrganizationRecord[];
}
