import { readMasterKey } from '../../platform/storage/index.js';
import { attemptDelivery } from './deliver.js';
import { deliverWebhookKind } from '../events/index.js';
import { deliveryFetchOptions } from './send.js';
import { defineJob } from '../../platform/job-runtime/index.js';

/**
 * One attempt of a webhook delivery, on the delivery lane with its own concurrency, so a slow or
 * dead receiver only ever holds delivery slots, never ingestion or publishing
 * (docs/webhooks.md "Delivery"). The retry schedule is the delivery's own: a failed attempt
 * queues the next one as a new job, and this job succeeds.
 */
export const webhookDeliverJob = defineJob({
  ...deliverWebhookKind,
  lane: 'delivery',
  handler: async (payload, { services }) => {
    const result = await attemptDelivery(
      {
        controlDb: services.controlDb,
        jobs: services.jobs,
        masterKey: readMasterKey(services.layout),
        now: services.now,
        fetchOptions: deliveryFetchOptions(services.config.settings),
      },
      payload,
    );
    services.metrics.webhookAttempts.inc({ result });
  },
});
