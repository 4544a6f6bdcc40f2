import type { Db } from '../../platform/storage/index.js';
import { assertWithinLimit } from '../plans/index.js';
import { appendAudit } from './audit.js';
import { ensureMemberRole } from './member-rows.js';
import { newId } from './record-ids.js';
import type { Role } from './record-types.js';

/** An address without an account, invited into an organization with a role. */
export interface InvitationRecord {
  /** inv_...; a renewed invitation (the address invited again) keeps it. */
  id: string;
  organizationId: string;
  email: string;
  role: Role;
  invitedBy: string | null;
  createdAt: number;
  expiresAt: number;
}

/**
 * Records (or renews) the invitation of `email`: a second invitation of the same address
 * replaces the first, with the new role, token and expiry. `tokenHash` is the hash of the mailed
 * invitation token, marked used when the invitation is accepted.
 */
export function saveInvitation(
  db: Db,
  input: {
    organizationId: string;
    email: string;
    role: Role;
    invitedBy: string | null;
    tokenHash: string;
    expiresAt: number;
  },
  now: number,
): InvitationRecord {
  const email = input.email.toLowerCase();
  // A new invitation takes a seat of the plan's members (docs/contract.md#plans); renewing one does not.
  if (
    !db
      .prepare('SELECT 1 FROM organization_invitations WHERE organization_id = ? AND email = ? AND expires_at > ?')
      .get(input.organizationId, email, now)
  ) {
    assertWithinLimit(db, input.organizationId, 'members', { nowMs: now });
  }
  const id = db
    .prepare(
      `INSERT INTO organization_invitations (id, organization_id, email, role, invited_by, token_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (organization_id, email) DO UPDATE SET role = excluded.role, invited_by = excluded.invited_by, token_hash = excluded.token_hash, created_at = excluded.created_at, expires_at = excluded.expires_at
     RETURNING id`,
    )
    .pluck()
    .get(
      newId('inv'),
      input.organizationId,
      email,
      input.role,
      input.invitedBy,
      input.tokenHash,
      now,
      input.expiresAt,
    ) as string;
  return {
    id,
    organizationId: input.organizationId,
    email,
    role: input.role,
    invitedBy: input.invitedBy,
    createdAt: now,
    expiresAt: input.expiresAt,
  };
}

/**
 * Accepts every unexpired invitation of the user's address (docs/organizations.md
 * "Invitations"): the user becomes a member with the invited role (an existing membership is
 * only ever raised), the invitation and its mailed token are used up, and the audit log says so.
 * Call it only for an address the user has proven (a verified email). Expired invitations of the
 * address are dropped. Returns the organizations joined.
 */
export function acceptPendingInvitations(
  db: Db,
  user: { userId: string; email: string },
  now: number,
): Array<{ organizationId: string; role: Role }> {
  const email = user.email.toLowerCase();
  return db
    .transaction(() => {
      const rows = db
        .prepare(
          'SELECT organization_id AS organizationId, role, token_hash AS tokenHash, expires_at AS expiresAt FROM organization_invitations WHERE email = ? ORDER BY organization_id',
        )
        .all(email) as Array<{ organizationId: string; role: Role; tokenHash: string; expiresAt: number }>;
      const joined: Array<{ organizationId: string; role: Role }> = [];
      for (const row of rows) {
        db.prepare('DELETE FROM organization_invitations WHERE organization_id = ? AND email = ?').run(
          row.organizationId,
          email,
        );
        if (row.expiresAt <= now) continue;
        db.prepare('UPDATE mail_tokens SET used_at = ? WHERE token_hash = ? AND used_at IS NULL').run(
          now,
          row.tokenHash,
        );
        ensureMemberRole(db, { organizationId: row.organizationId, userId: user.userId, role: row.role }, now);
        appendAudit(
          db,
          {
            organizationId: row.organizationId,
            actor: { kind: 'user', id: user.userId },
            action: 'member.joined',
            target: user.userId,
            details: { email, role: row.role },
          },
          now,
        );
        joined.push({ organizationId: row.organizationId, role: row.role });
      }
      return joined;
    })
    .immediate();
}

/** A pending invitation as the list shows it: who invited (the user's address while the account exists). */
export interface PendingInvitationRecord extends InvitationRecord {
  invitedByEmail: string | null;
}

const SELECT_PENDING = `SELECT i.id, i.organization_id AS organizationId, i.email, i.role, i.invited_by AS invitedBy,
  u.email AS invitedByEmail, i.created_at AS createdAt, i.expires_at AS expiresAt
  FROM organization_invitations i LEFT JOIN users u ON u.id = i.invited_by`;

/**
 * The organization's pending invitations (not yet accepted, not expired) by id, one page read
 * with `limit + 1` rows (platform/http pageOf). Accepted ones are gone from the table already.
 */
export function listPendingInvitations(
  db: Db,
  organizationId: string,
  page: { limit: number; after?: string | undefined },
  now: number,
): PendingInvitationRecord[] {
  return db
    .prepare(`${SELECT_PENDING} WHERE i.organization_id = ? AND i.expires_at > ? AND i.id > ? ORDER BY i.id LIMIT ?`)
    .all(organizationId, now, page.after ?? '', page.limit + 1) as PendingInvitationRecord[];
}

/**
 * Withdraws a pending invitation of the organization: the row goes (so the address no longer
 * joins and the seat is free) and its mailed token is marked used. Returns what was withdrawn,
 * or undefined when the organization has no pending invitation of that id.
 */
export function withdrawInvitation(
  db: Db,
  organizationId: string,
  invitationId: string,
  now: number,
): InvitationRecord | undefined {
  const row = db
    .prepare(
      `DELETE FROM organization_invitations WHERE organization_id = ? AND id = ? AND expires_at > ?
       RETURNING id, organization_id AS organizationId, email, role, invited_by AS invitedBy, token_hash AS tokenHash, created_at AS createdAt, expires_at AS expiresAt`,
    )
    .get(organizationId, invitationId, now) as (InvitationRecord & { tokenHash: string }) | undefined;
  if (!row) return undefined;
  db.prepare('UPDATE mail_tokens SET used_at = ? WHERE token_hash = ? AND used_at IS NULL').run(now, row.tokenHash);
  const { tokenHash: _tokenHash, ...invitation } = row;
  return invitation;
}
