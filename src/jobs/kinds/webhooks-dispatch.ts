import { dispatchEventsKind } from '../../events/dispatch-kind.js';
import { dispatchPendingEvents } from '../../webhooks/dispatch.js';
import { defineJob } from '../define.js';

/**
 * Turns outbox events into webhook deliveries (docs/webhooks.md "Delivery"). emitEvent queues it
 * when a subscription listens; the schedule sweeps up any event written while a run was ending.
 */
export const webhooksDispatchJob = defineJob({
  ...dispatchEventsKind,
  lane: 'delivery',
  schedule: { intervalSeconds: 60 },
  handler: async (_payload, { services }) => void dispatchPendingEvents(services.controlDb, services.jobs, services.now()),
});
