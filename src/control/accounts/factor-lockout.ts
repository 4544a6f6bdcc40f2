import { AppError } from '../../platform/errors/index.js';
import { renderNoticeMail } from '../mail/index.js';
import { readAuthUser } from './account-users.js';
import type { AccountsContext } from './context.js';

/** Failed second-factor checks in a row that lock the factor (OWASP ASVS 2.2.1). */
export const FACTOR_FAILURE_LIMIT = 5;
/** How long a locked factor refuses every code, the right one included. */
export const FACTOR_LOCK_MS = 15 * 60_000;

interface LockoutRow {
  failures: number;
  lockedUntil: number | null;
}

function readLockout(ctx: AccountsContext, userId: string): LockoutRow | undefined {
  return ctx.db
    .prepare('SELECT failures, locked_until AS lockedUntil FROM factor_lockouts WHERE user_id = ?')
    .get(userId) as LockoutRow | undefined;
}

function lockedError(lockedUntil: number, now: number, justLocked: boolean): AppError {
  const seconds = Math.max(1, Math.ceil((lockedUntil - now) / 1000));
  const minutes = Math.ceil(seconds / 60);
  const why = justLocked
    ? `That code is wrong too: after ${FACTOR_FAILURE_LIMIT} wrong codes in a row`
    : 'After too many wrong codes in a row';
  return new AppError(
    'auth.factor_locked',
    `${why}, two-factor codes of this account are refused for ${minutes} minutes (until ${new Date(lockedUntil).toISOString()}); wait, then send the current code of your authenticator app or an unused recovery code.`,
    { retryAfterSeconds: seconds, details: { lockedUntil: new Date(lockedUntil).toISOString() } },
  );
}

/** Throws 429 auth.factor_locked while the user's factor is locked; call before any code is looked at. */
export function assertFactorUnlocked(ctx: AccountsContext, userId: string): void {
  const row = readLockout(ctx, userId);
  const now = ctx.now();
  if (row?.lockedUntil != null && row.lockedUntil > now) throw lockedError(row.lockedUntil, now, false);
}

/** A code was right: the run of failures starts again. */
export function clearFactorFailures(ctx: AccountsContext, userId: string): void {
  ctx.db
    .prepare('UPDATE factor_lockouts SET failures = 0, updated_at = ? WHERE user_id = ? AND failures > 0')
    .run(ctx.now(), userId);
}

/**
 * Counts one wrong code. The FACTOR_FAILURE_LIMIT-th in a row locks the factor for FACTOR_LOCK_MS,
 * mails the user (a guesser holds their password or a session) and throws 429 auth.factor_locked;
 * the count starts again after the lock.
 */
export function recordFactorFailure(ctx: AccountsContext, userId: string): void {
  const now = ctx.now();
  const lockedUntil = ctx.db
    .transaction((): number | undefined => {
      ctx.db
        .prepare(
          'INSERT INTO factor_lockouts (user_id, failures, updated_at) VALUES (?, 1, ?) ON CONFLICT (user_id) DO UPDATE SET failures = factor_lockouts.failures + 1, updated_at = excluded.updated_at',
        )
        .run(userId, now);
      if ((readLockout(ctx, userId)?.failures ?? 0) < FACTOR_FAILURE_LIMIT) return undefined;
      const until = now + FACTOR_LOCK_MS;
      ctx.db.prepare('UPDATE factor_lockouts SET failures = 0, locked_until = ? WHERE user_id = ?').run(until, userId);
      return until;
    })
    .immediate();
  if (lockedUntil === undefined) return;
  ctx.logger.warn({ userId, lockedUntil }, 'second factor locked after repeated wrong codes');
  ctx.mail.enqueue('factor_locked', () => {
    const user = readAuthUser(ctx.db, userId);
    if (!user) return undefined;
    return renderNoticeMail(
      { kind: 'factor_locked', to: user.email, lockedUntil: new Date(lockedUntil).toISOString() },
      { appBaseUrl: ctx.appBaseUrl },
    );
  });
  throw lockedError(lockedUntil, now, true);
}

/**
 * Checks one presented code under the lock: refused unchecked while locked, a failure counted,
 * a success clearing the run. `check` says whether the code was right (and spends it).
 */
export function checkFactorUnderLock(ctx: AccountsContext, userId: string, check: () => boolean): boolean {
  assertFactorUnlocked(ctx, userId);
  if (check()) {
    clearFactorFailures(ctx, userId);
    return true;
  }
  recordFactorFailure(ctx, userId);
  return false;
}
