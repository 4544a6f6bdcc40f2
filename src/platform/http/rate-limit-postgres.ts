import type { PostgresStore } from '../storage/index.js';
import type { RateLimitStore } from './rate-limit-store.js';

/**
 * The rate-limit store of several daemons: table rate_limits of the PostgreSQL control store
 * (migration 0003). One atomic statement per increment, as the SQLite store's: every daemon
 * adds to, and reads, the same window counts.
 */
export function createPostgresRateLimitStore(store: PostgresStore): RateLimitStore {
  return {
    async increment(bucket, windowStart, _windowMs, by = 1) {
      const { rows } = await store.query<{ count: string }>(
        `INSERT INTO rate_limits (bucket, window_start, count) VALUES ($1, $2, $3)
         ON CONFLICT (bucket, window_start) DO UPDATE SET count = rate_limits.count + EXCLUDED.count RETURNING count`,
        [bucket, windowStart, by],
      );
      return Number(rows[0]!.count);
    },
    async read(bucket, windowStart) {
      const { rows } = await store.query<{ count: string }>(
        'SELECT count FROM rate_limits WHERE bucket = $1 AND window_start = $2',
        [bucket, windowStart],
      );
      return rows[0] === undefined ? 0 : Number(rows[0].count);
    },
  };
}

/** Drops the counters of windows that ended before `before` (ms), as pruneRateLimits does in SQLite. */
export async function prunePostgresRateLimits(store: PostgresStore, before: number): Promise<number> {
  return (await store.query('DELETE FROM rate_limits WHERE window_start < $1', [before])).rowCount;
}
