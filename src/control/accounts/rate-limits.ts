import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { consumeRateLimit, setRateLimitHeaders, type RateLimitStore } from '../../platform/http/index.js';

/**
 * The routes limited per address and per email (docs/contract.md#rate-limits), and
 * Google sign-in per address (its email is only known once the token is verified).
 */
export type RateLimitedAuthRoute = 'login' | 'register' | 'forgot' | 'google';

const WINDOW_MS = 60_000;

/** The counter's key for an email: a hash, so the counters keep no address in clear. */
function emailKey(email: string): string {
  return createHash('sha256').update(email.toLowerCase()).digest('base64url').slice(0, 22);
}

/**
 * Counts one attempt of `route` against the client address (`perAddress` per fixed minute) and
 * against the email (`perEmail`; the address alone when there is no email); the first exceeded
 * throws 429 quota.rate_limited with Retry-After. Per email low, so spreading a password guess
 * over many addresses does not help; per address high, so one address (or everyone behind one
 * proxy) cannot lock every account (docs/decisions.md). Each route counts on its own: a burst of
 * forgot-password mails does not lock the user out of login. The RateLimit headers show whichever
 * of the two counters has less left.
 */
export async function enforceAuthRateLimits(
  store: RateLimitStore,
  route: RateLimitedAuthRoute,
  limit: { address: string; email?: string; perEmail: number; perAddress: number; now: number },
  reply: FastifyReply,
): Promise<void> {
  const byAddressRule = { name: `auth.${route}.address`, limit: limit.perAddress, windowMs: WINDOW_MS };
  const byAddress = await consumeRateLimit(store, byAddressRule, `address:${limit.address}`, limit.now, reply);
  if (limit.email === undefined) return;
  const byEmailRule = { name: `auth.${route}`, limit: limit.perEmail, windowMs: WINDOW_MS };
  const byEmail = await consumeRateLimit(store, byEmailRule, `email:${emailKey(limit.email)}`, limit.now, reply);
  if (byAddress.remaining < byEmail.remaining) setRateLimitHeaders(reply, byAddress);
}
