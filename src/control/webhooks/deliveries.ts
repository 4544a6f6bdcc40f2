import { z } from 'zod';
import { AppError } from '../../platform/errors/app-error.js';
import type { ListQuery } from '../../platform/http/list-query.js';
import type { JobQueue } from '../../platform/jobs/queue.js';
import type { Db } from '../../platform/storage/sqlite.js';
import { deliverWebhookKind } from '../events/job-kinds.js';
import type { SubscriptionRecord } from './subscriptions.js';

export const DELIVERY_STATES = ['pending', 'succeeded', 'failed'] as const;
export const DeliveryFilterSchema = z.object({
  state: z.enum(DELIVERY_STATES, { error: `must be one of ${DELIVERY_STATES.join(', ')}` }).optional(),
});

interface DeliveryListRow {
  id: string;
  subscription_id: string;
  event_id: string;
  type: string;
  state: string;
  attempts: number;
  next_attempt_at: number | null;
  last_status: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
}

interface AttemptRow {
  id: string;
  trigger: string;
  started_at: number;
  duration_ms: number;
  status: number | null;
  error: string | null;
  response_excerpt: string;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function presentDelivery(row: DeliveryListRow) {
  return {
    id: row.id,
    subscriptionId: row.subscription_id,
    eventId: row.event_id,
    eventType: row.type,
    state: row.state,
    attempts: row.attempts,
    nextAttemptAt: iso(row.next_attempt_at),
    lastStatus: row.last_status,
    lastError: row.last_error,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

function presentAttempt(row: AttemptRow) {
  return {
    id: row.id,
    trigger: row.trigger,
    startedAt: iso(row.started_at),
    durationMs: row.duration_ms,
    status: row.status,
    error: row.error,
    responseExcerpt: row.response_excerpt,
  };
}

export type DeliveryView = ReturnType<typeof presentDelivery>;
export type AttemptView = ReturnType<typeof presentAttempt>;

const DELIVERY_COLUMNS = `d.id, d.subscription_id, d.event_id, e.type, d.state, d.attempts, d.next_attempt_at, d.last_status, d.last_error, d.created_at, d.updated_at`;

/** One page of a subscription's deliveries, newest first (LIMIT limit + 1, for pageOf); optionally of one state. */
export function listDeliveriesPage(db: Db, subscriptionId: string, query: ListQuery, state?: string): DeliveryView[] {
  const rows = db
    .prepare(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d JOIN events_outbox e ON e.id = d.event_id
     WHERE d.subscription_id = ? AND (? IS NULL OR d.state = ?) AND (? IS NULL OR d.id < ?) ORDER BY d.id DESC LIMIT ?`,
    )
    .all(
      subscriptionId,
      state ?? null,
      state ?? null,
      query.after ?? null,
      query.after ?? null,
      query.limit + 1,
    ) as DeliveryListRow[];
  return rows.map(presentDelivery);
}

/** The delivery of the subscription, or 404 webhook.delivery_not_found. */
export function readDelivery(db: Db, subscriptionId: string, deliveryId: string): DeliveryView {
  const row = db
    .prepare(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d JOIN events_outbox e ON e.id = d.event_id WHERE d.id = ? AND d.subscription_id = ?`,
    )
    .get(deliveryId, subscriptionId) as DeliveryListRow | undefined;
  if (!row)
    throw new AppError(
      'webhook.delivery_not_found',
      `No delivery ${deliveryId} of webhook subscription ${subscriptionId}: see GET .../webhooks/${subscriptionId}/deliveries.`,
    );
  return presentDelivery(row);
}

/**
 * One page of a delivery's attempts in the order they were made: by rowid, which only grows
 * within a delivery (two attempts in one millisecond have ULIDs in random order). The cursor
 * key is the rowid.
 */
export function listAttemptsPage(db: Db, deliveryId: string, query: ListQuery): Array<AttemptView & { seq: number }> {
  const after = query.after === undefined ? 0 : Number(query.after);
  const rows = db
    .prepare(`SELECT rowid AS seq, * FROM webhook_attempts WHERE delivery_id = ? AND rowid > ? ORDER BY rowid LIMIT ?`)
    .all(deliveryId, Number.isSafeInteger(after) ? after : 0, query.limit + 1) as Array<AttemptRow & { seq: number }>;
  return rows.map((row) => ({ ...presentAttempt(row), seq: row.seq }));
}

/**
 * Sends a delivery again by hand: one attempt, queued now on the delivery lane, whatever the
 * delivery's state (a succeeded one too: the receiver may have lost it). 409 webhook.disabled
 * while the subscription is disabled.
 */
export function resendDelivery(
  db: Db,
  jobs: JobQueue,
  subscription: SubscriptionRecord,
  deliveryId: string,
): { delivery: DeliveryView; jobId: string } {
  const delivery = readDelivery(db, subscription.id, deliveryId);
  if (!subscription.enabled)
    throw new AppError(
      'webhook.disabled',
      `Webhook subscription ${subscription.id} is disabled (${subscription.disabledReason ?? 'manual'}): enable it with PATCH {"enabled": true}, then send the delivery again.`,
    );
  const job = jobs.enqueue(deliverWebhookKind, {
    delivery_id: deliveryId,
    website_id: subscription.websiteId,
    manual: true,
  });
  return { delivery, jobId: job.id };
}
