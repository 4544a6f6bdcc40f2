import { newUlid } from '../ids/ulid.js';
import type { JobQueue } from '../jobs/queue.js';
import { hasCapability } from '../plans/entitlements.js';
import type { Db } from '../storage/sqlite.js';
import { deliverWebhookKind } from './job-kinds.js';

/** Events fanned out per transaction: a short write lock, whatever the backlog. */
const BATCH = 200;

interface PendingEvent { id: string; type: string; website_id: string; created_at: number; organization_id: string | null }

/**
 * Turns undispatched outbox events into deliveries (docs/webhooks.md "Delivery"): one per
 * enabled subscription of the event's website that lists its type and existed when it happened,
 * when the organization's plan carries cap.webhooks; each delivery gets its first
 * webhook.deliver job. The deliveries, their jobs and the event's dispatched_at commit together,
 * so a crash leaves the event undispatched (and dispatched again) rather than half-dispatched,
 * and two dispatchers at once never make a delivery twice. Returns the deliveries made.
 */
export function dispatchPendingEvents(db: Db, jobs: JobQueue, now: number): number {
  let made = 0;
  for (;;) {
    const batch = db.transaction(() => {
      const events = db.prepare(
        `SELECT e.id, e.type, e.website_id, e.created_at, w.organization_id FROM events_outbox e LEFT JOIN websites w ON w.id = e.website_id
         WHERE e.dispatched_at IS NULL ORDER BY e.created_at, e.id LIMIT ?`,
      ).all(BATCH) as PendingEvent[];
      const subscriptionsOf = db.prepare(
        `SELECT id FROM webhook_subscriptions WHERE website_id = ? AND enabled = 1 AND created_at <= ?
         AND EXISTS (SELECT 1 FROM json_each(events) WHERE value = ?) ORDER BY id`,
      );
      const insert = db.prepare(`INSERT OR IGNORE INTO webhook_deliveries (id, subscription_id, event_id, state, next_attempt_at, created_at, updated_at) VALUES (?, ?, ?, 'pending', ?, ?, ?)`);
      const markDispatched = db.prepare('UPDATE events_outbox SET dispatched_at = ? WHERE id = ?');
      const entitled = new Map<string, boolean>();
      for (const event of events) {
        const org = event.organization_id;
        if (org !== null && !entitled.has(org)) entitled.set(org, hasCapability(db, org, 'cap.webhooks'));
        const subscriptions = org !== null && entitled.get(org) ? (subscriptionsOf.pluck().all(event.website_id, event.created_at, event.type) as string[]) : [];
        for (const subscriptionId of subscriptions) {
          const id = `dlv_${newUlid(now)}`;
          if (insert.run(id, subscriptionId, event.id, now, now, now).changes === 0) continue;
          jobs.enqueue(deliverWebhookKind, { delivery_id: id, website_id: event.website_id, step: 0 });
          made++;
        }
        markDispatched.run(now, event.id);
      }
      return events.length;
    }).immediate();
    if (batch < BATCH) return made;
  }
}
