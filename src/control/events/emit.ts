import { newUlid } from '../../platform/ids/ulid.js';
import type { Db } from '../../platform/storage/sqlite.js';
import { EVENT_DATA_SCHEMAS, type EventInput } from './catalogue.js';
import { fanOutEvent } from './fan-out.js';

/**
 * Writes an event to the outbox (docs/webhooks.md "Events") with its deliveries: one per
 * listening subscription, each with its first webhook.deliver job. Call it inside the
 * transaction of the change that causes the event: event, deliveries and jobs commit with the
 * change or roll back with it, so none is lost and none is sent for a change that did not
 * happen. Nothing here waits on a receiver: the jobs run on the delivery lane. Returns the event
 * id (`evt_<ulid>`), or undefined for a website control.sqlite does not hold (nothing is
 * written). `data` must match the type's schema (src/control/events/catalogue.ts); a mismatch is a bug
 * of the caller and throws.
 */
export function emitEvent(db: Db, event: EventInput, now = Date.now()): string | undefined {
  const data = EVENT_DATA_SCHEMAS[event.type].parse(event.data);
  const id = `evt_${newUlid(now)}`;
  return db
    .transaction(() => {
      // A website this data directory does not hold (a fixture published by the CLI) has no subscriber.
      if (!db.prepare('SELECT 1 FROM websites WHERE id = ?').get(event.website_id)) return undefined;
      db.prepare('INSERT INTO events_outbox (id, type, website_id, data, created_at) VALUES (?, ?, ?, ?, ?)').run(
        id,
        event.type,
        event.website_id,
        JSON.stringify(data),
        now,
      );
      fanOutEvent(db, { id, type: event.type, website_id: event.website_id, created_at: now }, now);
      return id;
    })
    .immediate();
}
