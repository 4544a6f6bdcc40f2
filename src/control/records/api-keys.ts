import { createHash, randomInt } from 'node:crypto';
import { z } from 'zod';
import type { Db } from '../../platform/storage/sqlite.js';
import { AppError, fieldProblemsFromZod } from '../../platform/errors/app-error.js';
import { newId, nowIso } from './record-ids.js';
import { getOrganization } from './organizations.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const API_KEY_PREFIX = 'nk_live_';
export const API_KEY_ROLES = ['viewer', 'editor', 'organization_admin'] as const;

export const CreateApiKeySchema = z.strictObject({
  organizationId: z.string().min(1),
  name: z.string().trim().min(1).max(200).default('api key'),
  role: z.enum(API_KEY_ROLES).default('editor'),
  /** The user who created it (null: the operator at the shell). */
  createdBy: z.string().min(1).nullable().default(null),
});

export interface ApiKeyRecord {
  id: string;
  organizationId: string;
  name: string;
  role: (typeof API_KEY_ROLES)[number];
  prefix: string;
  createdBy: string | null;
  createdAt: string;
  revokedAt: string | null;
}

/** The key is 32 random base62 characters: a hash of it is enough at rest (no salt needed for 190 bits). */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** Creates an API key; the secret is returned once and only its hash is stored. */
export function createApiKey(
  db: Db,
  input: z.input<typeof CreateApiKeySchema>,
  now = Date.now(),
): ApiKeyRecord & { key: string } {
  const parsed = CreateApiKeySchema.safeParse(input);
  if (!parsed.success)
    throw new AppError('validation.failed', 'The API key request is not valid; see details.fields.', {
      details: { fields: fieldProblemsFromZod(parsed.error.issues) },
    });
  const { organizationId, name, role, createdBy } = parsed.data;
  if (!getOrganization(db, organizationId))
    throw new AppError('organization.not_found', `No organization ${organizationId}.`);
  let secret = '';
  for (let i = 0; i < 32; i++) secret += BASE62[randomInt(62)];
  const key = API_KEY_PREFIX + secret;
  const id = newId('key');
  const createdAt = nowIso(now);
  const prefix = key.slice(0, API_KEY_PREFIX.length + 4);
  db.prepare(
    'INSERT INTO api_keys (id, organization_id, name, role, prefix, secret_hash, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  ).run(id, organizationId, name, role, prefix, hashApiKey(key), createdBy, createdAt);
  return { id, organizationId, name, role, prefix, createdBy, createdAt, revokedAt: null, key };
}

/** Resolves a presented key to its live record, or undefined. */
export function resolveApiKey(db: Db, key: string): ApiKeyRecord | undefined {
  if (!key.startsWith(API_KEY_PREFIX)) return undefined;
  return db
    .prepare(
      'SELECT id, organization_id AS organizationId, name, role, prefix, created_by AS createdBy, created_at AS createdAt, revoked_at AS revokedAt FROM api_keys WHERE secret_hash = ? AND revoked_at IS NULL',
    )
    .get(hashApiKey(key)) as ApiKeyRecord | undefined;
}

export function listApiKeys(db: Db, organizationId?: string): ApiKeyRecord[] {
  const select =
    'SELECT id, organization_id AS organizationId, name, role, prefix, created_by AS createdBy, created_at AS createdAt, revoked_at AS revokedAt FROM api_keys';
  return (
    organizationId
      ? db.prepare(`${select} WHERE organization_id = ? ORDER BY created_at, id`).all(organizationId)
      : db.prepare(`${select} ORDER BY created_at, id`).all()
  ) as ApiKeyRecord[];
}

const SELECT_KEY =
  'SELECT id, organization_id AS organizationId, name, role, prefix, created_by AS createdBy, created_at AS createdAt, revoked_at AS revokedAt FROM api_keys';

/** One key of the organization (revoked or not), undefined when it has none of that id. */
export function getApiKey(db: Db, organizationId: string, keyId: string): ApiKeyRecord | undefined {
  return db.prepare(`${SELECT_KEY} WHERE organization_id = ? AND id = ?`).get(organizationId, keyId) as
    ApiKeyRecord | undefined;
}

/** The organization's keys by id, revoked ones included; reads limit + 1 rows (after: the last id of the previous page). */
export function listApiKeysPage(
  db: Db,
  organizationId: string,
  page: { limit: number; after?: string | undefined },
): ApiKeyRecord[] {
  return db
    .prepare(`${SELECT_KEY} WHERE organization_id = ? AND id > ? ORDER BY id LIMIT ?`)
    .all(organizationId, page.after ?? '', page.limit + 1) as ApiKeyRecord[];
}

/** Revokes a key at once: the next request with it is 401. Revoking a revoked key changes nothing; returns whether this call revoked it. */
export function revokeApiKey(db: Db, organizationId: string, keyId: string, now = Date.now()): boolean {
  return (
    db
      .prepare('UPDATE api_keys SET revoked_at = ? WHERE organization_id = ? AND id = ? AND revoked_at IS NULL')
      .run(nowIso(now), organizationId, keyId).changes === 1
  );
}
