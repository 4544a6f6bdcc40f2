import type { Db } from '../../platform/storage/sqlite.js';
import { assertWithinLimit } from '../plans/entitlements.js';
import { appendAudit } from './audit.js';
import { ensureMemberRole } from './member-rows.js';
import type { Role } from './record-types.js';

/** An address without an account, invited into an organization with a role. */
export interface InvitationRecord {
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
  db.prepare(
    `INSERT INTO organization_invitations (organization_id, email, role, invited_by, token_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (organization_id, email) DO UPDATE SET role = excluded.role, invited_by = excluded.invited_by, token_hash = excluded.token_hash, created_at = excluded.created_at, expires_at = excluded.expires_at`,
  ).run(input.organizationId, email, input.role, input.invitedBy, input.tokenHash, now, input.expiresAt);
  return {
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
