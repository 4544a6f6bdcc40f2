import type Database from 'better-sqlite3';
import { writeWithoutWaiting, type Db } from '../storage/index.js';
import type { RateLimitStore } from './rate-limit-store.js';

const statements = new WeakMap<Db, { increment: Database.Statement<unknown[]>; read: Database.Statement<unknown[]> }>();

function prepare(db: Db) {
  let s = statements.get(db);
  if (!s) {
    s = {
      increment: db.prepare(
        `INSERT INTO rate_limits (bucket, window_start, count) VALUES (?, ?, ?)
         ON CONFLICT (bucket, window_start) DO UPDATE SET count = rate_limits.count + excluded.count RETURNING count`,
      ),
      read: db.prepare('SELECT count FROM rate_limits WHERE bucket = ? AND window_start = ?'),
    };
    statements.set(db, s);
  }
  return s;
}

/**
 * Adds `by` to a counter in control.sqlite and returns the count after. The write commits with
 * synchronous=NORMAL: a counter needs no fsync (losing the last counts to a power cut only
 * forgives a few requests), and an fsync costs far more than the write (docs/decisions.md). A later FULL
 * commit on the connection syncs these frames too.
 */
export function incrementSqliteCounter(db: Db, bucket: string, windowStart: number, by = 1): number {
  const { increment } = prepare(db);
  db.pragma('synchronous = NORMAL');
  try {
    return (increment.get(bucket, windowStart, by) as { count: number }).count;
  } finally {
    db.pragma('synchronous = FULL');
  }
}

/**
 * The embedded rate-limit store: table rate_limits of control.sqlite (pruned hourly by maintenance.rate_limits.prune).
 */
export function createSqliteRateLimitStore(db: Db, options: { waitForLock?: boolean } = {}): RateLimitStore {
  return {
    async increment(bucket, windowStart, _windowMs, by = 1) {
      if (options.waitForLock ?? true) return incrementSqliteCounter(db, bucket, windowStart, by);
      let count = 0;
      if (!writeWithoutWaiting(db, () => void (count = incrementSqliteCounter(db, bucket, windowStart, by))))
        throw new RateLimitStoreBusyError();
      return count;
    },
    async read(bucket, windowStart) {
      return (prepare(db).read.get(bucket, windowStart) as { count: number } | undefined)?.count ?? 0;
    },
  };
}

/**
 * An increment refused because another process holds control.sqlite's
 * write lock; a buffered store keeps the count for its next flush.
 */
export class RateLimitStoreBusyError extends Error {
  readonly code = 'SQLITE_BUSY';
  constructor() {
    super('control.sqlite is locked by another process; the rate-limit counts are kept for the next flush');
  }
}
