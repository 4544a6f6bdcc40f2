import type { GuardedFetchOptions } from '../../platform/net/guarded-fetch.js';
import { newUlid } from '../../platform/ids/ulid.js';
import type { JobQueue } from '../../platform/jobs/queue.js';
import type { Db } from '../../platform/storage/sqlite.js';
import { deliverWebhookKind, type DeliverWebhookPayload } from '../events/job-kinds.js';
import { isDelivered, postWebhook, type AttemptOutcome } from './send.js';
import { signWebhook } from './signer.js';
import { findSubscription, signingKeysOf, type SubscriptionRecord } from './subscriptions.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** docs/contract.md#webhooks: the retries after the first attempt; after the last, the delivery is failed. */
export const RETRY_DELAYS_MS: readonly number[] = [5_000, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR];
/** A subscription whose attempts have failed for this long, without a success between, is disabled. */
export const DISABLE_AFTER_FAILING_MS = 72 * HOUR;

export interface DeliveryDeps {
  controlDb: Db;
  jobs: JobQueue;
  masterKey: Uint8Array;
  now: () => number;
  fetchOptions: GuardedFetchOptions;
}

interface DeliveryRow {
  id: string;
  subscription_id: string;
  event_id: string;
  state: 'pending' | 'succeeded' | 'failed';
  step: number;
  type: string;
  website_id: string;
  data: string;
  event_created_at: number;
}

export type AttemptResult = 'skipped' | 'delivered' | 'retrying' | 'failed' | 'kept';

/** The exact bytes every attempt of an event sends: `{id, type, created_at, website_id, data}`. */
export function eventBody(event: {
  id: string;
  type: string;
  created_at: number;
  website_id: string;
  data: string;
}): string {
  return JSON.stringify({
    id: event.id,
    type: event.type,
    created_at: new Date(event.created_at).toISOString(),
    website_id: event.website_id,
    data: JSON.parse(event.data) as unknown,
  });
}

function readDelivery(db: Db, id: string): DeliveryRow | undefined {
  return db
    .prepare(
      `SELECT d.id, d.subscription_id, d.event_id, d.state, d.step, e.type, e.website_id, e.data, e.created_at AS event_created_at
     FROM webhook_deliveries d JOIN events_outbox e ON e.id = d.event_id WHERE d.id = ?`,
    )
    .get(id) as DeliveryRow | undefined;
}

/**
 * Makes one attempt of a delivery (the webhook.deliver job): signs the event's payload with the
 * subscription's current key (and the previous one during a rotation), POSTs it, and records the
 * attempt and what follows in one transaction: success; the next retry of the schedule, queued
 * as its own job; or a failed delivery. 410 Gone disables the subscription; so do 3 days of
 * failures without a success. A scheduled job whose step was already taken (it ran before a
 * crash) does nothing, so a delivery is sent at least once and rarely twice.
 */
export async function attemptDelivery(deps: DeliveryDeps, payload: DeliverWebhookPayload): Promise<AttemptResult> {
  const db = deps.controlDb;
  const delivery = readDelivery(db, payload.delivery_id);
  if (!delivery) return 'skipped';
  const manual = payload.manual === true;
  if (!manual && (delivery.state !== 'pending' || delivery.step !== payload.step)) return 'skipped';
  const subscription = findSubscription(db, delivery.subscription_id);
  if (!subscription) return 'skipped';
  if (!subscription.enabled) {
    if (!manual) finishDisabled(db, delivery.id, subscription, deps.now());
    return 'skipped';
  }
  const startedAt = deps.now();
  const body = eventBody({
    id: delivery.event_id,
    type: delivery.type,
    created_at: delivery.event_created_at,
    website_id: delivery.website_id,
    data: delivery.data,
  });
  const outcome = await send(deps, subscription, delivery.event_id, body, startedAt);
  return recordAttempt(deps, delivery, manual, startedAt, outcome);
}

async function send(
  deps: DeliveryDeps,
  subscription: SubscriptionRecord,
  eventId: string,
  body: string,
  startedAt: number,
): Promise<AttemptOutcome> {
  let keys: Buffer[];
  try {
    keys = signingKeysOf(subscription, deps.masterKey, startedAt);
  } catch (error) {
    return { status: null, durationMs: 0, excerpt: '', error: `signing: ${(error as Error).message}` };
  }
  // webhook-id is the event id: the same on every attempt, so a receiver drops the duplicates at-least-once brings.
  return postWebhook(
    subscription.url,
    signWebhook(keys, eventId, Math.floor(startedAt / 1000), body),
    body,
    deps.fetchOptions,
  );
}

function finishDisabled(db: Db, deliveryId: string, subscription: SubscriptionRecord, now: number): void {
  db.prepare(
    `UPDATE webhook_deliveries SET state = 'failed', next_attempt_at = NULL, last_error = ?, updated_at = ? WHERE id = ? AND state = 'pending'`,
  ).run(`subscription disabled (${subscription.disabledReason ?? 'manual'})`, now, deliveryId);
}

function recordAttempt(
  deps: DeliveryDeps,
  delivery: DeliveryRow,
  manual: boolean,
  startedAt: number,
  outcome: AttemptOutcome,
): AttemptResult {
  const db = deps.controlDb;
  const now = deps.now();
  return db
    .transaction((): AttemptResult => {
      // The subscription (and with it the delivery) may have been deleted while the request was out.
      const current = db.prepare('SELECT state, step FROM webhook_deliveries WHERE id = ?').get(delivery.id) as
        { state: DeliveryRow['state']; step: number } | undefined;
      if (!current) return 'skipped';
      db.prepare(
        `INSERT INTO webhook_attempts (id, delivery_id, trigger, started_at, duration_ms, status, error, response_excerpt) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        `att_${newUlid(startedAt)}`,
        delivery.id,
        manual ? 'manual' : 'schedule',
        startedAt,
        outcome.durationMs,
        outcome.status,
        outcome.error,
        outcome.excerpt,
      );
      const step = manual ? current.step : current.step + 1;
      const finish = (state: DeliveryRow['state'], nextAttemptAt: number | null) =>
        db
          .prepare(
            `UPDATE webhook_deliveries SET state = ?, step = ?, attempts = attempts + 1, next_attempt_at = ?, last_status = ?, last_error = ?, updated_at = ? WHERE id = ?`,
          )
          .run(state, step, nextAttemptAt, outcome.status, outcome.error, now, delivery.id);

      if (isDelivered(outcome)) {
        db.prepare('UPDATE webhook_subscriptions SET failing_since = NULL WHERE id = ?').run(delivery.subscription_id);
        finish('succeeded', null);
        return 'delivered';
      }
      db.prepare('UPDATE webhook_subscriptions SET failing_since = COALESCE(failing_since, ?) WHERE id = ?').run(
        startedAt,
        delivery.subscription_id,
      );
      const { failing_since: failingSince } = db
        .prepare('SELECT failing_since FROM webhook_subscriptions WHERE id = ?')
        .get(delivery.subscription_id) as { failing_since: number };
      const disable =
        outcome.status === 410 ? 'gone' : now - failingSince >= DISABLE_AFTER_FAILING_MS ? 'failing' : undefined;
      if (disable) {
        db.prepare(
          `UPDATE webhook_subscriptions SET enabled = 0, disabled_reason = ?, updated_at = ? WHERE id = ? AND enabled = 1`,
        ).run(disable, now, delivery.subscription_id);
        finish(current.state === 'succeeded' ? 'succeeded' : 'failed', null);
        return 'failed';
      }
      // A re-send by hand leaves the delivery's own schedule (or its final state) as it was.
      if (manual) {
        db.prepare(
          'UPDATE webhook_deliveries SET attempts = attempts + 1, last_status = ?, last_error = ?, updated_at = ? WHERE id = ?',
        ).run(outcome.status, outcome.error, now, delivery.id);
        return 'kept';
      }
      const delay = RETRY_DELAYS_MS[current.step];
      if (delay === undefined) {
        finish('failed', null);
        return 'failed';
      }
      finish('pending', now + delay);
      deps.jobs.enqueue(
        deliverWebhookKind,
        { delivery_id: delivery.id, website_id: delivery.website_id, step },
        { runAt: now + delay },
      );
      return 'retrying';
    })
    .immediate();
}
