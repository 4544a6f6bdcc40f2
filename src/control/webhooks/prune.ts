import type { Db } from '../../platform/storage/sqlite.js';

/** How long an event, its deliveries and their attempts stay listable (docs/webhooks.md "Retention"). */
export const EVENT_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/** Deletes events older than the retention whose deliveries are all finished; deliveries and attempts go with them. */
export function pruneDeliveredEvents(db: Db, now: number): number {
  return db
    .prepare(
      `DELETE FROM events_outbox WHERE created_at < ? AND dispatched_at IS NOT NULL
     AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = events_outbox.id AND d.state = 'pending')`,
    )
    .run(now - EVENT_RETENTION_MS).changes;
}
