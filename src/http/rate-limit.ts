import type { Db } from '../storage/sqlite.js';
import { AppError } from '../errors/app-error.js';

/**
 * A fixed-window counter in the control database, so limits hold across restarts and across
 * processes sharing the data directory. Throws 429 quota.rate_limited with Retry-After.
 */
export function enforceRateLimit(db: Db, bucket: string, limit: number, windowMs: number, now: number): void {
  const windowStart = now - (now % windowMs);
  const row = db
    .prepare(
      `INSERT INTO rate_limits (bucket, window_start, count) VALUES (?, ?, 1)
       ON CONFLICT (bucket, window_start) DO UPDATE SET count = count + 1 RETURNING count`,
    )
    .get(bucket, windowStart) as { count: number };
  if (row.count > limit) {
    const retryAfterSeconds = Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000));
    throw new AppError('quota.rate_limited', `Too many requests; try again in ${retryAfterSeconds} s.`, { retryAfterSeconds });
  }
}

/** Drops counters of windows that ended before `before` (ms). */
export function pruneRateLimits(db: Db, before: number): number {
  return db.prepare('DELETE FROM rate_limits WHERE window_start < ?').run(before).changes;
}
