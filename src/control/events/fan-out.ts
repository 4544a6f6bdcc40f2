import { newUlid } from '../../platform/ids/index.js';
import { JobQueue } from '../../platform/jobs/index.js';
import { hasCapability } from '../plans/index.js';
import type { Db } from '../../platform/storage/index.js';
import { deliverWebhookKind } from './job-kinds.js';

/** An outbox event as fan-out reads it. */
export interface OutboxEvent {
  id: string;
  type: string;
  website_id: string;
  created_at: number;
}

/**
 * Makes the deliveries of one outbox event and marks it dispatched, inside the caller's
 * transaction: one delivery per enabled subscription of the event's website that lists its type
 * and existed when it happened, when the organization's plan carries cap.webhooks, each with its
 * first webhook.deliver job. A delivery already made for (subscription, event) is not made
 * again. Returns the deliveries made.
 */
export function fanOutEvent(db: Db, event: OutboxEvent, now: number): number {
  const org = db.prepare('SELECT organization_id FROM websites WHERE id = ?').pluck().get(event.website_id) as
    string | undefined;
  let made = 0;
  if (org !== undefined && hasCapability(db, org, 'cap.webhooks')) {
    const subscriptions = db
      .prepare(
        `SELECT id FROM webhook_subscriptions WHERE website_id = ? AND enabled = 1 AND created_at <= ?
       AND EXISTS (SELECT 1 FROM json_each(events) WHERE value = ?) ORDER BY id`,
      )
      .pluck()
      .all(event.website_id, event.created_at, event.type) as string[];
    const insert = db.prepare(
      `INSERT INTO webhook_deliveries (id, subscription_id, event_id, state, next_attempt_at, created_at, updated_at) VALUES (?, ?, ?, 'pending', ?, ?, ?) ON CONFLICT DO NOTHING`,
    );
    const jobs = new JobQueue(db, { now: () => now });
    for (const subscriptionId of subscriptions) {
      const id = `dlv_${newUlid(now)}`;
      if (insert.run(id, subscriptionId, event.id, now, now, now).changes === 0) continue;
      jobs.enqueue(deliverWebhookKind, { delivery_id: id, website_id: event.website_id, step: 0 });
      made++;
    }
  }
  db.prepare('UPDATE events_outbox SET dispatched_at = ? WHERE id = ?').run(now, event.id);
  return made;
}
