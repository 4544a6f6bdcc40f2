import { z } from 'zod';
import { pruneRateLimits, prunePostgresRateLimits } from '../../platform/http/index.js';
import type { Db } from '../../platform/storage/index.js';
import { defineJob } from '../../platform/job-runtime/index.js';

/** Rate-limit counters are kept an hour: longer than any limit's window (the longest is a minute). */
export const RATE_LIMIT_KEEP_MS = 3_600_000;

/** Drops rate-limit counters of long-ended windows, so the rate_limits table stays small. */
export function pruneRateLimitCounters(db: Db, now: number): number {
  return pruneRateLimits(db, now - RATE_LIMIT_KEEP_MS);
}

export const rateLimitsPruneJob = defineJob({
  kind: 'maintenance.rate_limits.prune',
  lane: 'maintenance',
  payload: z.object({}),
  schedule: { intervalSeconds: 3600 },
  handler: async (_payload, { services }) => {
    pruneRateLimitCounters(services.controlDb, services.now());
    if (services.postgres) await prunePostgresRateLimits(services.postgres, services.now() - RATE_LIMIT_KEEP_MS);
  },
});
