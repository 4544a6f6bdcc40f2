import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { AppError } from '../errors/index.js';
import type { Db } from '../storage/index.js';
import { incrementSqliteCounter } from './rate-limit-sqlite.js';
import type { RateLimitStore } from './rate-limit-store.js';

export type { RateLimitStore } from './rate-limit-store.js';

/** At most `limit` requests per fixed window of `windowMs` for one key (docs/contract.md#rate-limits). */
export interface RateLimitRule {
  /** Names the counter family, e.g. `ingest` (buckets are `<name>:<hash of the key>`). */
  readonly name: string;
  readonly limit: number;
  readonly windowMs: number;
}

/** Where a key stands in the current window, for the RateLimit headers. */
export interface RateLimitState {
  readonly limit: number;
  readonly remaining: number;
  /** Seconds until the window ends (at least 1). */
  readonly resetSeconds: number;
  readonly windowSeconds: number;
}

function stateOf(rule: RateLimitRule, count: number, nowMs: number): RateLimitState {
  const windowStart = nowMs - (nowMs % rule.windowMs);
  return {
    limit: rule.limit,
    remaining: Math.max(0, rule.limit - count),
    resetSeconds: Math.max(1, Math.ceil((windowStart + rule.windowMs - nowMs) / 1000)),
    windowSeconds: Math.round(rule.windowMs / 1000),
  };
}

/**
 * The stored bucket of a key: the key (an API key or connector id, a client address) only as a
 * hash, so the counters hold no id or address in clear, and a count written after an
 * organization's erasure names nothing of it.
 */
function bucketOf(rule: RateLimitRule, key: string): string {
  return `${rule.name}:${createHash('sha256').update(key).digest('base64url').slice(0, 22)}`;
}

/** 429 quota.rate_limited with Retry-After (the seconds until the window ends). */
export function rateLimitedError(state: RateLimitState): AppError {
  return new AppError(
    'quota.rate_limited',
    `Too many requests: at most ${state.limit} per ${state.windowSeconds} s; try again in ${state.resetSeconds} s.`,
    {
      retryAfterSeconds: state.resetSeconds,
      details: { limit: state.limit, window_seconds: state.windowSeconds },
    },
  );
}

/**
 * The IETF RateLimit header fields in their three-field form (draft-ietf-httpapi-ratelimit-headers:
 * RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset in seconds) plus RateLimit-Policy
 * (`<limit>;w=<window seconds>`), on every answer of a limited route.
 */
export function setRateLimitHeaders(reply: FastifyReply, state: RateLimitState): void {
  reply.header('RateLimit-Limit', String(state.limit));
  reply.header('RateLimit-Remaining', String(state.remaining));
  reply.header('RateLimit-Reset', String(state.resetSeconds));
  reply.header('RateLimit-Policy', `${state.limit};w=${state.windowSeconds}`);
}

/**
 * Counts one request of `key` under `rule`; throws 429 once the window's count passes the limit.
 * With `reply`, the RateLimit headers go on it, on the 429 too.
 */
export async function consumeRateLimit(
  store: RateLimitStore,
  rule: RateLimitRule,
  key: string,
  nowMs: number,
  reply?: FastifyReply,
): Promise<RateLimitState> {
  const count = await increment(store, rule, key, nowMs);
  const state = stateOf(rule, count, nowMs);
  if (reply) setRateLimitHeaders(reply, state);
  if (count > rule.limit) throw rateLimitedError(state);
  return state;
}

/** A store that cannot be reached fails closed: 503, retryable (as the nonce store does). */
function storeUnavailable(cause: unknown): AppError {
  return new AppError('service.unavailable', 'The rate-limit store is unavailable; retry shortly.', { cause });
}

async function increment(store: RateLimitStore, rule: RateLimitRule, key: string, nowMs: number): Promise<number> {
  try {
    return await store.increment(bucketOf(rule, key), nowMs - (nowMs % rule.windowMs), rule.windowMs);
  } catch (error) {
    throw storeUnavailable(error);
  }
}

/**
 * The synchronous SQLite form for callers without a store at hand (the auth routes): a
 * fixed-window counter in control.sqlite; throws 429 quota.rate_limited with Retry-After.
 */
export function enforceRateLimit(db: Db, bucket: string, limit: number, windowMs: number, now: number): void {
  const count = incrementSqliteCounter(db, bucket, now - (now % windowMs));
  if (count > limit) throw rateLimitedError(stateOf({ name: bucket, limit, windowMs }, count, now));
}

/** Drops counters of windows that ended before `before` (ms). */
export function pruneRateLimits(db: Db, before: number): number {
  return db.prepare('DELETE FROM rate_limits WHERE window_start < ?').run(before).changes;
}
