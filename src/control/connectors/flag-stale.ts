import { emitEvent } from '../events/emit.js';
import type { Db } from '../../platform/storage/sqlite.js';

/** docs/contract.md#heartbeat: a connector silent this long is flagged stale. */
export const STALE_AFTER_MS = 15 * 60_000;

/**
 * Flags the active connectors whose last heartbeat is 15 minutes old or older and emits one
 * connector.stale event for each, in the same transaction. A flagged connector is skipped on the
 * next runs, so each silence emits once; its next heartbeat clears the flag (src/ingest/endpoints/heartbeat.ts)
 * and a later silence emits again. A connector that never sent a heartbeat has not started, so
 * it is not stale. Returns the ids flagged.
 */
export function flagStaleConnectors(db: Db, now: number): string[] {
  const cutoff = new Date(now - STALE_AFTER_MS).toISOString();
  return db
    .transaction(() => {
      const silent = db
        .prepare(
          `SELECT id, website_id, name, last_heartbeat_at FROM connectors
       WHERE status = 'active' AND stale = 0 AND last_heartbeat_at IS NOT NULL AND last_heartbeat_at <= ? ORDER BY id`,
        )
        .all(cutoff) as Array<{ id: string; website_id: string; name: string; last_heartbeat_at: string }>;
      const flag = db.prepare('UPDATE connectors SET stale = 1 WHERE id = ? AND stale = 0');
      for (const connector of silent) {
        flag.run(connector.id);
        emitEvent(
          db,
          {
            type: 'connector.stale',
            website_id: connector.website_id,
            data: {
              connector_id: connector.id,
              name: connector.name,
              last_heartbeat_at: connector.last_heartbeat_at,
              stale_after_ms: STALE_AFTER_MS,
            },
          },
          now,
        );
      }
      return silent.map((c) => c.id);
    })
    .immediate();
}
