import { fanOutEvent, type OutboxEvent } from '../events/fan-out.js';
import type { Db } from '../../platform/storage/sqlite.js';

/** Events fanned out per transaction: a short write lock, whatever the backlog. */
const BATCH = 200;

/**
 * Fans out the outbox events still undispatched (written by code that inserted them without
 * emitEvent, or before a crash of an older build), oldest first, each in the same transaction as
 * its deliveries, so two sweeps at once never make a delivery twice. Returns the deliveries made.
 */
export function dispatchPendingEvents(db: Db, now: number): number {
  let made = 0;
  for (;;) {
    const count = db
      .transaction(() => {
        const events = db
          .prepare(
            'SELECT id, type, website_id, created_at FROM events_outbox WHERE dispatched_at IS NULL ORDER BY created_at, id LIMIT ?',
          )
          .all(BATCH) as OutboxEvent[];
        for (const event of events) made += fanOutEvent(db, event, now);
        return events.length;
      })
      .immediate();
    if (count < BATCH) return made;
  }
}
