import { AppError } from '../../platform/errors/app-error.js';
import { newUlid } from '../../platform/ids/ulid.js';
import { readAuthUser, toAccountUser, type AccountUser, type AuthUser } from './account-users.js';
import { signAccessToken } from './access-tokens.js';
import type { AccountsContext } from './context.js';
import { hashOpaqueToken, looksLikeOpaqueToken, newOpaqueToken } from './opaque-tokens.js';
import { isSessionLive, readSession, revokeEveryUserSession, revokeSessionRow } from './session-store.js';

/** The body of a login, Google sign-in or refresh answer (docs/contract.md#sessions). */
export interface SessionGrant {
  accessToken: string;
  tokenType: 'Bearer';
  /** Seconds until the access token expires. */
  expiresIn: number;
  refreshToken: string;
  user: AccountUser;
}

/** A grant and what the route needs for the svc_refresh cookie (its Max-Age ends with the session). */
export interface SignInResult {
  grant: SessionGrant;
  sessionId: string;
  /** ms since the epoch; the refresh token stops working then. */
  sessionExpiresAt: number;
}

function insertRefreshToken(ctx: AccountsContext, sessionId: string, now: number): string {
  const token = newOpaqueToken();
  ctx.db
    .prepare('INSERT INTO refresh_tokens (token_hash, session_id, created_at) VALUES (?, ?, ?)')
    .run(hashOpaqueToken(token), sessionId, now);
  return token;
}

async function grantFor(
  ctx: AccountsContext,
  user: AuthUser,
  sessionId: string,
  refreshToken: string,
  sessionExpiresAt: number,
): Promise<SignInResult> {
  const { accessToken, expiresIn } = await signAccessToken(ctx, {
    userId: user.id,
    sessionId,
    tokenVersion: user.tokenVersion,
  });
  return {
    grant: { accessToken, tokenType: 'Bearer', expiresIn, refreshToken, user: toAccountUser(ctx.db, user) },
    sessionId,
    sessionExpiresAt,
  };
}

/** Starts a session for a user who proved who they are; it lasts sessionLifetimeDays from now. */
export async function startSession(ctx: AccountsContext, user: AuthUser): Promise<SignInResult> {
  const now = ctx.now();
  const sessionId = `ses_${newUlid(now)}`;
  const expiresAt = now + ctx.sessionLifetimeMs;
  const refreshToken = ctx.db
    .transaction(() => {
      ctx.db
        .prepare('INSERT INTO sessions (id, user_id, created_at, expires_at, last_used_at) VALUES (?, ?, ?, ?, ?)')
        .run(sessionId, user.id, now, expiresAt, now);
      return insertRefreshToken(ctx, sessionId, now);
    })
    .immediate();
  return grantFor(ctx, user, sessionId, refreshToken, expiresAt);
}

type RefreshOutcome =
  | { kind: 'rotated'; sessionId: string; userId: string; refreshToken: string; expiresAt: number }
  | { kind: 'reused' }
  | { kind: 'ended' }
  | { kind: 'unknown' };

/**
 * Trades a refresh token for a new access token and a new refresh token (rotation on every use).
 * Presenting a token that was already traded is taken as theft: the whole session ends and the
 * answer is 401 auth.refresh_reused. An unknown token, or one of an ended session, is 401
 * auth.unauthenticated. The trade is one IMMEDIATE transaction, so two concurrent refreshes with
 * the same token cannot both succeed.
 */
export async function refreshSession(ctx: AccountsContext, refreshToken: string): Promise<SignInResult> {
  if (!looksLikeOpaqueToken(refreshToken))
    throw new AppError('auth.unauthenticated', 'This is not a refresh token of this service; sign in again.');
  const now = ctx.now();
  const hash = hashOpaqueToken(refreshToken);
  const outcome = ctx.db
    .transaction((): RefreshOutcome => {
      const row = ctx.db
        .prepare('SELECT session_id AS sessionId, rotated_at AS rotatedAt FROM refresh_tokens WHERE token_hash = ?')
        .get(hash) as { sessionId: string; rotatedAt: number | null } | undefined;
      if (!row) return { kind: 'unknown' };
      if (row.rotatedAt !== null) {
        // Committed before the error is thrown: the revocation must survive the failed request.
        revokeSessionRow(ctx.db, row.sessionId, 'refresh_reused', now);
        return { kind: 'reused' };
      }
      const session = readSession(ctx.db, row.sessionId);
      if (!session || !isSessionLive(session, now)) return { kind: 'ended' };
      ctx.db.prepare('UPDATE refresh_tokens SET rotated_at = ? WHERE token_hash = ?').run(now, hash);
      ctx.db.prepare('UPDATE sessions SET last_used_at = ? WHERE id = ?').run(now, session.id);
      return {
        kind: 'rotated',
        sessionId: session.id,
        userId: session.userId,
        refreshToken: insertRefreshToken(ctx, session.id, now),
        expiresAt: session.expiresAt,
      };
    })
    .immediate();
  if (outcome.kind === 'reused') {
    ctx.logger.warn({ event: 'refresh_reused' }, 'a rotated refresh token was presented again; its session is revoked');
    throw new AppError(
      'auth.refresh_reused',
      'This refresh token was already used, so the session may be stolen: it is now ended. Sign in again.',
    );
  }
  if (outcome.kind !== 'rotated')
    throw new AppError(
      'auth.unauthenticated',
      outcome.kind === 'unknown'
        ? 'Unknown refresh token; sign in again.'
        : 'This session has ended (signed out or expired); sign in again.',
    );
  const user = readAuthUser(ctx.db, outcome.userId);
  if (!user) throw new AppError('auth.unauthenticated', 'The account of this session no longer exists.');
  return grantFor(ctx, user, outcome.sessionId, outcome.refreshToken, outcome.expiresAt);
}

/** POST /v1/auth/logout: ends the caller's session; its access and refresh tokens stop working at once. */
export function logout(ctx: AccountsContext, caller: { sessionId: string }): void {
  revokeSessionRow(ctx.db, caller.sessionId, 'logout', ctx.now());
}

/** POST /v1/auth/logout-all: ends every session of the user and bumps the token version. */
export function logoutAll(ctx: AccountsContext, caller: { userId: string }): void {
  revokeEveryUserSession(ctx.db, caller.userId, 'logout_all', ctx.now());
}
