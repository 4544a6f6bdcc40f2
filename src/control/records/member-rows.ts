import type { Db } from '../../platform/storage/sqlite.js';
import { AppError } from '../../platform/errors/app-error.js';
import { nowIso } from './record-ids.js';
import { roleAtLeast, type Role } from './record-types.js';
import { assertWithinLimit } from '../plans/entitlements.js';

/** One member of an organization, as lists and member routes show it. */
export interface MemberRecord {
  userId: string;
  email: string;
  role: Role;
  createdAt: string;
}

/** A page request: at most `limit` rows after the key `after` (the list's sort key). */
export interface RowPage {
  readonly limit: number;
  readonly after?: string | undefined;
}

const SELECT =
  'SELECT m.user_id AS userId, u.email, m.role, m.created_at AS createdAt FROM members m JOIN users u ON u.id = m.user_id';

/** The user's role in the organization, undefined when not a member (the membership lookup of a user principal). */
export function memberRole(db: Db, organizationId: string, userId: string): Role | undefined {
  return db
    .prepare('SELECT role FROM members WHERE organization_id = ? AND user_id = ?')
    .pluck()
    .get(organizationId, userId) as Role | undefined;
}

export function getMember(db: Db, organizationId: string, userId: string): MemberRecord | undefined {
  return db.prepare(`${SELECT} WHERE m.organization_id = ? AND m.user_id = ?`).get(organizationId, userId) as
    MemberRecord | undefined;
}

/** Members by user id; reads limit + 1 rows so the caller knows whether a page follows. */
export function listMembers(db: Db, organizationId: string, page: RowPage): MemberRecord[] {
  return db
    .prepare(`${SELECT} WHERE m.organization_id = ? AND m.user_id > ? ORDER BY m.user_id LIMIT ?`)
    .all(organizationId, page.after ?? '', page.limit + 1) as MemberRecord[];
}

function ownerCount(db: Db, organizationId: string): number {
  return db
    .prepare(`SELECT COUNT(*) FROM members WHERE organization_id = ? AND role = 'organization_owner'`)
    .pluck()
    .get(organizationId) as number;
}

function memberNotFound(userId: string): AppError {
  return new AppError(
    'member.not_found',
    `User ${userId} is not a member of this organization: see GET /v1/organizations/:id/members.`,
  );
}

/** The last owner stays: an organization always has someone who may delete, erase or transfer it. */
function assertNotLastOwner(db: Db, organizationId: string, current: Role, next: Role | undefined): void {
  if (current === 'organization_owner' && next !== 'organization_owner' && ownerCount(db, organizationId) === 1) {
    throw new AppError(
      'organization.last_owner',
      `This member is the organization's only owner: make another member organization_owner first (or transfer the organization).`,
    );
  }
}

/** Adds an existing user with a role; 409 organization.member_exists when already a member (change the role with PATCH); 403 entitlement.limit_reached past the plan's members. */
export function addMember(
  db: Db,
  input: { organizationId: string; userId: string; role: Role },
  now: number,
): MemberRecord {
  return db
    .transaction(() => {
      if (memberRole(db, input.organizationId, input.userId)) {
        throw new AppError(
          'organization.member_exists',
          `User ${input.userId} is already a member: change the role with PATCH /v1/organizations/:id/members/:userId.`,
        );
      }
      assertWithinLimit(db, input.organizationId, 'members', { nowMs: now });
      db.prepare('INSERT INTO members (organization_id, user_id, role, created_at) VALUES (?, ?, ?, ?)').run(
        input.organizationId,
        input.userId,
        input.role,
        nowIso(now),
      );
      return getMember(db, input.organizationId, input.userId)!;
    })
    .immediate();
}

/**
 * Sets a member's role after `check(currentRole)` passes (the caller's policy); the last owner
 * cannot be demoted (409 organization.last_owner). Returns the member and the role it had.
 */
export function changeMemberRole(
  db: Db,
  input: { organizationId: string; userId: string; role: Role },
  check: (current: Role) => void,
): { member: MemberRecord; previous: Role } {
  return db
    .transaction(() => {
      const current = memberRole(db, input.organizationId, input.userId);
      if (!current) throw memberNotFound(input.userId);
      check(current);
      assertNotLastOwner(db, input.organizationId, current, input.role);
      db.prepare('UPDATE members SET role = ? WHERE organization_id = ? AND user_id = ?').run(
        input.role,
        input.organizationId,
        input.userId,
      );
      return { member: getMember(db, input.organizationId, input.userId)!, previous: current };
    })
    .immediate();
}

/** Removes a member after `check(currentRole)` passes; the last owner cannot be removed. Returns the role it had. */
export function removeMember(
  db: Db,
  input: { organizationId: string; userId: string },
  check: (current: Role) => void,
): Role {
  return db
    .transaction(() => {
      const current = memberRole(db, input.organizationId, input.userId);
      if (!current) throw memberNotFound(input.userId);
      check(current);
      assertNotLastOwner(db, input.organizationId, current, undefined);
      db.prepare('DELETE FROM members WHERE organization_id = ? AND user_id = ?').run(
        input.organizationId,
        input.userId,
      );
      return current;
    })
    .immediate();
}

/**
 * Makes a user a member with `role`, or raises an existing member to it (never lowers one): for
 * invitations and transfers, where the user's standing must end at least at `role`.
 */
export function ensureMemberRole(
  db: Db,
  input: { organizationId: string; userId: string; role: Role },
  now: number,
): void {
  const current = memberRole(db, input.organizationId, input.userId);
  if (!current)
    db.prepare('INSERT INTO members (organization_id, user_id, role, created_at) VALUES (?, ?, ?, ?)').run(
      input.organizationId,
      input.userId,
      input.role,
      nowIso(now),
    );
  else if (!roleAtLeast(current, input.role))
    db.prepare('UPDATE members SET role = ? WHERE organization_id = ? AND user_id = ?').run(
      input.role,
      input.organizationId,
      input.userId,
    );
}
