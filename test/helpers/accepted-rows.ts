import type { GraphDbPool } from '../../src/platform/storage/index.js';

/** One accepted item version as the tests look at it: a row of raw_items, or of the inbox (state 'inbox'). */
export interface AcceptedRow {
  raw_content_id: string;
  item_type: string;
  item_id: string;
  state: 'inbox' | 'pending' | 'processed' | 'failed' | 'tombstoned';
  checksum: string;
  url: string;
  language: string | null;
  body: string | null;
}

const COLUMNS = 'raw_content_id, item_type, item_id, checksum, url, language, body';

/**
 * What the website holds of each item it accepted: its raw_items row, or the newest version of it
 * still in the inbox (src/ingest/graph/inbox.ts) when the move would take that one, ordered by
 * item id then type.
 */
export function acceptedRows(graphs: Pick<GraphDbPool, 'get' | 'inbox'>, websiteId: string): AcceptedRow[] {
  const rows = new Map<string, AcceptedRow>();
  const key = (row: AcceptedRow) => `${row.item_type}\u001f${row.item_id}`;
  // The inbox first: a job moving a row commits it to raw_items before it leaves the inbox, so a
  // row moved between the two reads is in the second; read the other way round, it would be in neither.
  const inboxed = graphs
    .inbox(websiteId)
    .prepare(`SELECT ${COLUMNS}, 'inbox' AS state FROM inbox_items ORDER BY seq`)
    .all() as AcceptedRow[];
  for (const row of graphs.get(websiteId).prepare(`SELECT ${COLUMNS}, state FROM raw_items`).all() as AcceptedRow[])
    rows.set(key(row), row);
  for (const row of inboxed) {
    const stored = rows.get(key(row));
    if (stored?.state === 'tombstoned' || (stored && stored.raw_content_id >= row.raw_content_id)) continue;
    rows.set(key(row), row);
  }
  return [...rows.values()].sort(
    (a, b) => a.item_id.localeCompare(b.item_id) || a.item_type.localeCompare(b.item_type),
  );
}
