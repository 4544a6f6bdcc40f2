import { z } from 'zod';
import { rollUpAnalytics } from './rollup.js';
import { defineJob } from '../../platform/job-runtime/index.js';

/**
 * Hourly: sums the hourly analytics rows (node reads by agent and file, items ingested,
 * versions published) into daily rows and prunes old ones (src/control/analytics/rollup.ts); the
 * analytics route answers from the daily rows.
 */
export const analyticsAggregateJob = defineJob({
  kind: 'analytics.aggregate',
  lane: 'maintenance',
  payload: z.object({}),
  schedule: { intervalSeconds: 3600 },
  handler: async (_payload, { services }) => {
    const result = rollUpAnalytics(services.controlDb, services.now());
    services.logger.debug({ ...result }, 'analytics.aggregate: daily rollups written');
  },
});
