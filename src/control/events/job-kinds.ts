import { z } from 'zod';
import type { JobKind } from '../../platform/jobs/index.js';

/**
 * One delivery attempt. A scheduled attempt carries its step (0 for the first send, then one per
 * retry of the schedule): a job run again after a crash finds the step already taken and does
 * nothing. A re-send by hand is `manual` and always makes one attempt. website_id lets an
 * organization erase find the job. emitEvent queues the first attempt of each delivery; the
 * definition (lane, handler) is src/control/webhooks/deliver-job.ts.
 */
export const deliverWebhookKind = {
  kind: 'webhook.deliver',
  payload: z.object({
    delivery_id: z.string().min(1),
    website_id: z.string().min(1),
    step: z.number().int().min(0).optional(),
    manual: z.boolean().optional(),
  }),
} satisfies JobKind;

export type DeliverWebhookPayload = z.output<typeof deliverWebhookKind.payload>;

/**
 * The sweep that fans out outbox events no delivery was made for (an event written by other
 * code than emitEvent); its definition is src/control/webhooks/dispatch-job.ts.
 */
export const dispatchEventsKind = { kind: 'webhooks.dispatch', payload: z.object({}) } satisfies JobKind;
