import type Database from 'better-sqlite3';
import type { Db } from '../storage/sqlite.js';
import type { RateLimitStore } from './rate-limit-store.js';

const statements = new WeakMap<Db, { increment: Database.Statement<unknown[]>; read: Database.Statement<unknown[]> }>();

function prepare(db: Db) {
  let s = statements.get(db);
  if (!s) {
    s = {
      increment: db.prepare(
        `INSERT INTO rate_limits (bucket, window_start, count) VALUES (?, ?, 1)
         ON CONFLICT (bucket, window_start) DO UPDATE SET count = count + 1 RETURNING count`,
      ),
      read: db.prepare('SELECT count FROM rate_limits WHERE bucket = ? AND window_start = ?'),
    };
    statements.set(db, s);
  }
  return s;
}

/**
 * Adds one to a counter in control.sqlite and returns the count after. The write commits with
 * synchronous=NORMAL: a counter needs no fsync (losing the last counts to a power cut only
 * forgives a few requests), and an fsync per request cost about 0.8 ms against 45 us without
 * (docs/decisions.md). A later FULL commit on the connection syncs these frames too.
 */
export function incrementSqliteCounter(db: Db, bucket: string, windowStart: number): number {
  const { increment } = prepare(db);
  db.pragma('synchronous = NORMAL');
  try {
    return (increment.get(bucket, windowStart) as { count: number }).count;
  } finally {
    db.pragma('synchronous = FULL');
  }
}

/** The embedded rate-limit store: table rate_limits of control.sqlite (pruned hourly by maintenance.rate_limits.prune). */
export function createSqliteRateLimitStore(db: Db): RateLimitStore {
  return {
    async increment(bucket, windowStart) {
      return incrementSqliteCounter(db, bucket, windowStart);
    },
    async read(bucket, windowStart) {
      return (prepare(db).read.get(bucket, windowStart) as { count: number } | undefined)?.count ?? 0;
    },
  };
}
