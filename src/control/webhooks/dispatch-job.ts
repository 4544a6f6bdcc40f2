import { dispatchEventsKind } from '../events/index.js';
import { dispatchPendingEvents } from './dispatch.js';
import { defineJob } from '../../platform/job-runtime/index.js';

/**
 * Every minute, fans out outbox events that no delivery was made for (emitEvent makes them in
 * the change's own transaction; this sweeps up events other code inserted). Maintenance lane: a
 * delivery lane full of slow receivers never holds it up.
 */
export const webhooksDispatchJob = defineJob({
  ...dispatchEventsKind,
  lane: 'maintenance',
  schedule: { intervalSeconds: 60 },
  handler: async (_payload, { services }) => {
    const made = dispatchPendingEvents(services.controlDb, services.now());
    if (made > 0) services.logger.info({ deliveries: made }, 'undispatched webhook events fanned out');
  },
});
