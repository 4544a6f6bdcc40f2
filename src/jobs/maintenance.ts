import type { Db } from '../storage/sqlite.js';
import type { JobQueue } from './queue.js';
import { pruneRateLimits } from '../daemon/rate-limit.js';

const DAY_MS = 86_400_000;

/** Rate-limit counters are kept an hour: longer than any limit's window (the longest is a minute). */
export const RATE_LIMIT_KEEP_MS = 3_600_000;

/** Deletes expired nonces, idempotency records and publish locks. Returns rows removed per table. */
export function expireControlRecords(db: Db, now: number): Record<string, number> {
  const nowMs = now;
  return {
    nonces: db.prepare('DELETE FROM nonces WHERE expires_at < ?').run(nowMs).changes,
    idempotency: db.prepare(`DELETE FROM idempotency WHERE expires_at < ? AND state = 'completed'`).run(nowMs).changes,
    publishLocks: db.prepare('DELETE FROM publish_locks WHERE expires_at < ?').run(now).changes,
  };
}

/** Drops rate-limit counters of long-ended windows, so the rate_limits table stays small. */
export function pruneRateLimitCounters(db: Db, now: number): number {
  return pruneRateLimits(db, now - RATE_LIMIT_KEEP_MS);
}

/** Deletes succeeded and dead jobs that finished more than `retentionDays` ago. */
export function pruneFinishedJobs(queue: JobQueue, now: number, retentionDays: number): number {
  return queue.pruneFinished(now - retentionDays * DAY_MS);
}
