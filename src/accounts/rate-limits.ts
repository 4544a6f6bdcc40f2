import { createHash } from 'node:crypto';
import { enforceRateLimit } from '../http/rate-limit.js';
import type { Db } from '../storage/sqlite.js';

/** The routes limited per address and per email (docs/contract.md#rate-limits). */
export type RateLimitedAuthRoute = 'login' | 'register' | 'forgot';

const WINDOW_MS = 60_000;

/** The counter's key for an email: a hash, so the rate_limits table keeps no address in clear. */
function emailKey(email: string): string {
  return createHash('sha256').update(email.toLowerCase()).digest('base64url').slice(0, 22);
}

/**
 * Counts one attempt of `route` against the client address and against the email, each
 * `perMinute` per fixed minute; the first exceeded throws 429 quota.rate_limited with
 * Retry-After. Per email too, so spreading a password guess over many addresses does not help.
 * Each route counts on its own: a burst of forgot-password mails does not lock the user out of login.
 */
export function enforceAuthRateLimits(db: Db, route: RateLimitedAuthRoute, limit: { address: string; email: string; perMinute: number; now: number }): void {
  enforceRateLimit(db, `auth.${route}:address:${limit.address}`, limit.perMinute, WINDOW_MS, limit.now);
  enforceRateLimit(db, `auth.${route}:email:${emailKey(limit.email)}`, limit.perMinute, WINDOW_MS, limit.now);
}
