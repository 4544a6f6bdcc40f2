import { z } from 'zod';
import type { Db } from '../../platform/storage/sqlite.js';
import { AppError, fieldProblemsFromZod } from '../../platform/errors/app-error.js';
import { newId, nowIso } from './record-ids.js';
import { EmailSchema, PlanSchema, type OrganizationRecord, type Role } from './record-types.js';
import { findUserByEmail } from './users.js';

type Plan = OrganizationRecord['plan'];

export const CreateOrganizationSchema = z.strictObject({
  name: z.string().trim().min(1, 'must not be empty').max(200),
  ownerEmail: EmailSchema,
  plan: PlanSchema.default('free'),
});

/** Lowercase ascii words joined by dashes; a numeric suffix keeps it unique. */
function slugFor(db: Db, name: string): string {
  const base =
    name
      .normalize('NFKD')
      .replace(/[^\w\s-]/g, '')
      .trim()
      .toLowerCase()
      .replace(/[\s_-]+/g, '-')
      .slice(0, 48) || 'org';
  for (let n = 1; ; n++) {
    const slug = n === 1 ? base : `${base}-${n}`;
    if (!db.prepare('SELECT 1 FROM organizations WHERE slug = ?').get(slug)) return slug;
  }
}

/** Creates an organization and makes the owner (an existing user) its organization_owner. */
export function createOrganization(
  db: Db,
  input: z.input<typeof CreateOrganizationSchema>,
  now = Date.now(),
): OrganizationRecord {
  const parsed = CreateOrganizationSchema.safeParse(input);
  if (!parsed.success)
    throw new AppError('validation.failed', 'The organization is not valid; see details.fields.', {
      details: { fields: fieldProblemsFromZod(parsed.error.issues) },
    });
  const { name, ownerEmail, plan } = parsed.data;
  return db
    .transaction(() => {
      const owner = findUserByEmail(db, ownerEmail);
      if (!owner)
        throw new AppError(
          'user.not_found',
          `No user with email ${ownerEmail}: create it first with \`nodectl admin user create\`.`,
        );
      return insertOrganization(db, { name, plan, ownerId: owner.id }, now);
    })
    .immediate();
}

/** Creates an organization owned by an existing user (POST /v1/organizations); the slug is derived from the name. */
export function createOrganizationOwnedBy(
  db: Db,
  input: { name: string; ownerId: string; plan?: Plan },
  now = Date.now(),
): OrganizationRecord {
  return db
    .transaction(() =>
      insertOrganization(db, { name: input.name, plan: input.plan ?? 'free', ownerId: input.ownerId }, now),
    )
    .immediate();
}

function insertOrganization(
  db: Db,
  input: { name: string; plan: Plan; ownerId: string },
  now: number,
): OrganizationRecord {
  const id = newId('org');
  const createdAt = nowIso(now);
  const slug = slugFor(db, input.name);
  db.prepare('INSERT INTO organizations (id, name, slug, plan, created_at) VALUES (?, ?, ?, ?, ?)').run(
    id,
    input.name,
    slug,
    input.plan,
    createdAt,
  );
  db.prepare(
    `INSERT INTO members (organization_id, user_id, role, created_at) VALUES (?, ?, 'organization_owner', ?)`,
  ).run(id, input.ownerId, createdAt);
  return { id, name: input.name, slug, plan: input.plan, createdAt };
}

/** Renames an organization; its slug stays (links and the erase confirmation keep working). */
export function renameOrganization(db: Db, id: string, name: string): OrganizationRecord | undefined {
  db.prepare('UPDATE organizations SET name = ? WHERE id = ?').run(name, id);
  return getOrganization(db, id);
}

/** The operator's plan change (`nodectl admin org set-plan`); 404 organization.not_found for an unknown id. */
export function setOrganizationPlan(
  db: Db,
  id: string,
  plan: Plan,
): { organization: OrganizationRecord; previous: Plan } {
  return db
    .transaction(() => {
      const before = getOrganization(db, id);
      if (!before)
        throw new AppError('organization.not_found', `No organization ${id}: see \`nodectl admin org list\`.`);
      db.prepare('UPDATE organizations SET plan = ? WHERE id = ?').run(plan, id);
      return { organization: { ...before, plan }, previous: before.plan };
    })
    .immediate();
}

export function getOrganization(db: Db, id: string): OrganizationRecord | undefined {
  return db.prepare('SELECT id, name, slug, plan, created_at AS createdAt FROM organizations WHERE id = ?').get(id) as
    OrganizationRecord | undefined;
}

export function listOrganizations(db: Db): OrganizationRecord[] {
  return db
    .prepare('SELECT id, name, slug, plan, created_at AS createdAt FROM organizations ORDER BY created_at, id')
    .all() as OrganizationRecord[];
}

/** The organizations a user belongs to, by id, with the user's role; reads limit + 1 rows (after: the last id of the previous page). */
export function listOrganizationsOfUser(
  db: Db,
  userId: string,
  page: { limit: number; after?: string | undefined },
): Array<OrganizationRecord & { role: Role }> {
  return db
    .prepare(
      'SELECT o.id, o.name, o.slug, o.plan, o.created_at AS createdAt, m.role FROM members m JOIN organizations o ON o.id = m.organization_id WHERE m.user_id = ? AND o.id > ? ORDER BY o.id LIMIT ?',
    )
    .all(userId, page.after ?? '', page.limit + 1) as Array<OrganizationRecord & { role: Role }>;
}
