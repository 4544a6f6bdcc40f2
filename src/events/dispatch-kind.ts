import { z } from 'zod';
import type { JobKind } from '../jobs/payload.js';

/**
 * The job that turns outbox events into webhook deliveries. emitEvent enqueues it (so a change
 * that other code makes can start deliveries without importing the webhooks feature); its
 * definition, lane and handler are src/jobs/kinds/webhooks-dispatch.ts.
 */
export const dispatchEventsKind = { kind: 'webhooks.dispatch', payload: z.object({}) } satisfies JobKind;

/** While one dispatch job is queued or running, emitEvent adds no other. */
export const DISPATCH_DEDUPE_KEY = 'webhooks.dispatch';
