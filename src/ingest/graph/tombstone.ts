import type { DeleteReason } from '../../platform/contract/index.js';
import type { Db } from '../../platform/storage/index.js';

/** A raw row a delete tombstones, as it was before: what an erasure needs to find its records. */
export interface TombstonedRow {
  item_type: string;
  item_id: string;
  state: string;
  url: string;
  canonical_url: string | null;
}

export interface TombstoneOutcome {
  /** The ids found (each tombstones every type sharing it), in the order asked, without repeats. */
  tombstoned: string[];
  notFound: string[];
  /** Every (type, id) tombstoned: the content.ingest job removes what was derived from them. */
  removed: Array<{ type: string; id: string }>;
}

/**
 * Tombstones items by connector id (every type sharing the id) in one transaction (a savepoint
 * inside the caller's): the raw body goes; for gdpr_erasure the url and checksum too, so only the
 * bare (type, id) remains to keep the item from being re-ingested. `beforeTombstone` sees the rows
 * before they are blanked (delete-items.ts reads an erasure's sources from them). `at` is the
 * delete's RFC 3339 time, written to processed_at, so a replay of the same delete writes the same row.
 */
export function tombstoneItems(
  db: Db,
  ids: readonly string[],
  reason: DeleteReason,
  at: string,
  beforeTombstone?: (rows: readonly TombstonedRow[]) => void,
): TombstoneOutcome {
  const erase = reason === 'gdpr_erasure';
  const find = db.prepare('SELECT item_type, item_id, state, url, canonical_url FROM raw_items WHERE item_id = ?');
  const tombstone = db.prepare(
    erase
      ? `UPDATE raw_items SET state = 'tombstoned', tombstone_reason = ?, body = NULL, url = '', canonical_url = NULL, checksum = '', language = NULL, last_error = NULL, processed_at = ? WHERE item_id = ?`
      : `UPDATE raw_items SET state = 'tombstoned', tombstone_reason = ?, body = NULL, processed_at = ? WHERE item_id = ? AND state != 'tombstoned'`,
  );
  return db
    .transaction((): TombstoneOutcome => {
      const outcome: TombstoneOutcome = { tombstoned: [], notFound: [], removed: [] };
      const rows: TombstonedRow[] = [];
      for (const id of [...new Set(ids)]) {
        const found = find.all(id) as TombstonedRow[];
        if (found.length === 0) {
          outcome.notFound.push(id);
          continue;
        }
        rows.push(...found);
        outcome.tombstoned.push(id);
        for (const row of found) outcome.removed.push({ type: row.item_type, id: row.item_id });
      }
      if (rows.length > 0) beforeTombstone?.(rows);
      for (const id of outcome.tombstoned) tombstone.run(reason, at, id);
      return outcome;
    })
    .immediate();
}

/**
 * Tombstoned items whose contribution is still in the graph: their content.ingest removal had not
 * run yet (a graph restored from a snapshot taken in between). With the delete's reason.
 */
export function tombstonedWithContribution(db: Db): Array<{ type: string; id: string; reason: string | null }> {
  return db
    .prepare(
      `SELECT r.item_type AS type, r.item_id AS id, r.tombstone_reason AS reason FROM raw_items r
       JOIN item_contributions c ON c.item_key = r.item_type || ':' || r.item_id
       WHERE r.state = 'tombstoned' ORDER BY r.item_type, r.item_id`,
    )
    .all() as Array<{ type: string; id: string; reason: string | null }>;
}
