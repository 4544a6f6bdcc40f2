import type { Db } from '../../platform/storage/sqlite.js';

/** A session row: one sign-in, renewed by its chain of refresh tokens until it expires or is revoked. */
export interface SessionRecord {
  id: string;
  userId: string;
  createdAt: number;
  expiresAt: number;
  lastUsedAt: number;
  revokedAt: number | null;
  revokedReason: string | null;
}

export type SessionRevokeReason =
  'logout' | 'logout_all' | 'password_change' | 'password_reset' | 'refresh_reused' | 'account_linked';

const SELECT =
  'SELECT id, user_id AS userId, created_at AS createdAt, expires_at AS expiresAt, last_used_at AS lastUsedAt, revoked_at AS revokedAt, revoked_reason AS revokedReason FROM sessions';

export function readSession(db: Db, id: string): SessionRecord | undefined {
  return db.prepare(`${SELECT} WHERE id = ?`).get(id) as SessionRecord | undefined;
}

export function isSessionLive(session: SessionRecord, now: number): boolean {
  return session.revokedAt === null && now < session.expiresAt;
}

/** The user's current token version: an access token carrying another one is stale. */
export function readTokenVersion(db: Db, userId: string): number | undefined {
  return db.prepare('SELECT token_version FROM users WHERE id = ?').pluck().get(userId) as number | undefined;
}

export function revokeSessionRow(db: Db, id: string, reason: SessionRevokeReason, now: number): boolean {
  return (
    db
      .prepare('UPDATE sessions SET revoked_at = ?, revoked_reason = ? WHERE id = ? AND revoked_at IS NULL')
      .run(now, reason, id).changes === 1
  );
}

/** Ends every session of a user and bumps the token version, so each earlier access token fails at once. */
export function revokeEveryUserSession(db: Db, userId: string, reason: SessionRevokeReason, now: number): number {
  return db
    .transaction(() => {
      db.prepare('UPDATE users SET token_version = token_version + 1 WHERE id = ?').run(userId);
      return db
        .prepare('UPDATE sessions SET revoked_at = ?, revoked_reason = ? WHERE user_id = ? AND revoked_at IS NULL')
        .run(now, reason, userId).changes;
    })
    .immediate();
}
