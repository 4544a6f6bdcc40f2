import { newUlid } from '../ids/ulid.js';
import { JobQueue } from '../jobs/queue.js';
import type { Db } from '../storage/sqlite.js';
import { EVENT_DATA_SCHEMAS, type EventInput } from './catalogue.js';
import { DISPATCH_DEDUPE_KEY, dispatchEventsKind } from './dispatch-kind.js';

/**
 * Writes an event to the outbox (docs/webhooks.md "Events"). Call it inside the transaction of
 * the change that causes the event: the event commits with the change, or rolls back with it,
 * so none is lost and none is sent for a change that did not happen. Returns the event id
 * (`evt_<ulid>`).
 *
 * When a subscription of the website listens for the type, a dispatch job is queued in the same
 * transaction (it makes the deliveries); otherwise the event is stored as already dispatched,
 * so a website without subscriptions costs one insert and no job. `data` must match the type's
 * schema (src/events/catalogue.ts); a mismatch is a bug of the caller and throws.
 */
export function emitEvent(db: Db, event: EventInput, now = Date.now()): string {
  const data = EVENT_DATA_SCHEMAS[event.type].parse(event.data);
  const id = `evt_${newUlid(now)}`;
  db.transaction(() => {
    const listened = db
      .prepare(`SELECT 1 FROM webhook_subscriptions WHERE website_id = ? AND enabled = 1 AND EXISTS (SELECT 1 FROM json_each(events) WHERE value = ?) LIMIT 1`)
      .get(event.website_id, event.type) !== undefined;
    db.prepare('INSERT INTO events_outbox (id, type, website_id, data, created_at, dispatched_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(id, event.type, event.website_id, JSON.stringify(data), now, listened ? null : now);
    if (listened) new JobQueue(db, { now: () => now }).enqueue(dispatchEventsKind, {}, { dedupeKey: DISPATCH_DEDUPE_KEY });
  }).immediate();
  return id;
}
