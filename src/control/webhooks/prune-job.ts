import { z } from 'zod';
import { pruneDeliveredEvents } from './prune.js';
import { defineJob } from '../../platform/job-runtime/index.js';

/**
 * Once a day, deletes outbox events older than 30 days whose
 * deliveries are all finished, with their deliveries and attempts.
 */
export const webhooksPruneJob = defineJob({
  kind: 'maintenance.webhooks.prune',
  lane: 'maintenance',
  payload: z.object({}),
  schedule: { intervalSeconds: 86_400 },
  handler: async (_payload, { services }) => {
    const pruned = pruneDeliveredEvents(services.controlDb, services.now());
    if (pruned > 0) services.logger.info({ events: pruned }, 'old webhook events pruned');
  },
});
