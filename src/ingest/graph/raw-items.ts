import { monotonicFactory } from 'ulid';
import type { IngestItem } from '../../platform/contract/index.js';
import type Database from 'better-sqlite3';
import type { Db } from '../../platform/storage/index.js';

/** What happened to one valid item in the graph database. */
export type WriteOutcome =
  | { status: 'accepted'; rawContentId: string; update: boolean }
  | { status: 'skipped'; reason: 'unchanged_checksum' | 'tombstoned' }
  /** New or changed, but `acceptAtMost` items were already accepted: not written. */
  | { status: 'over_limit' };

interface Statements {
  /**
   * The stored rows of a batch's (type, id) pairs, given as a JSON array of [type, id]: one statement for the batch.
   */
  findAll: Database.Statement<unknown[]>;
  insert: Database.Statement<unknown[]>;
  update: Database.Statement<unknown[]>;
}

const statements = new WeakMap<Db, Statements>();
const nextUlid = monotonicFactory();

function prepare(db: Db): Statements {
  let s = statements.get(db);
  if (!s) {
    s = {
      findAll: db.prepare(`SELECT r.item_type, r.item_id, r.raw_content_id, r.checksum, r.state FROM json_each(?) t
        JOIN raw_items r ON r.item_type = t.value ->> 0 AND r.item_id = t.value ->> 1`),
      insert: db.prepare(
        `INSERT INTO raw_items (raw_content_id, item_type, item_id, checksum, url, canonical_url, language, body, state, connector_id, received_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)`,
      ),
      update: db.prepare(
        `UPDATE raw_items SET raw_content_id = ?, checksum = ?, url = ?, canonical_url = ?, language = ?, body = ?, state = 'pending',
           connector_id = ?, received_at = ?, processed_at = NULL, last_error = NULL WHERE item_type = ? AND item_id = ?`,
      ),
    };
    statements.set(db, s);
  }
  return s;
}

interface StoredRow {
  raw_content_id: string;
  checksum: string;
  state: string;
}

export interface WriteItemsOptions {
  connectorId: string;
  defaultLanguage: string;
  receivedAt: string;
  /**
   * Accept at most this many items (a quota's remainder); the rest
   * that would be accepted are over_limit. Default: no limit.
   */
  acceptAtMost?: number;
}

type FoundRow = StoredRow & { item_type: string; item_id: string };

/** The stored rows of the items' (type, id) pairs, by type and id (one statement). */
function findStored(s: Statements, items: readonly IngestItem[]): Map<string, StoredRow> {
  const stored = new Map<string, StoredRow>();
  for (const row of s.findAll.all(JSON.stringify(items.map((item) => [item.type, item.id]))) as FoundRow[])
    stored.set(row.item_type + '\u001f' + row.item_id, row);
  return stored;
}

/**
 * What writeRawItems would answer when it would write nothing: every item is tombstoned or has
 * its stored checksum. Found by a read, which in WAL mode never waits for a writer (the graph
 * writer thread's transactions), so a re-push of unchanged items needs no write turn. null when
 * any item would be written (or over the limit): then writeRawItems decides, in its transaction.
 */
export function unchangedOutcomes(db: Db, items: readonly IngestItem[]): WriteOutcome[] | null {
  const stored = findStored(prepare(db), items);
  const out: WriteOutcome[] = [];
  for (const item of items) {
    const existing = stored.get(item.type + '\u001f' + item.id);
    if (existing?.state === 'tombstoned') out.push({ status: 'skipped', reason: 'tombstoned' });
    else if (existing && existing.checksum === item.checksum)
      out.push({ status: 'skipped', reason: 'unchanged_checksum' });
    else return null;
  }
  return out;
}

/**
 * Writes valid items into raw_items in ONE transaction (run it through commitDurably), after one
 * lookup of every item's stored row (an unchanged item costs a map lookup, no statement):
 * new (type, id) accepted; same checksum skipped unchanged_checksum; tombstoned ids skipped;
 * a changed checksum accepted as an update with a new raw_content_id. `bodyOf(i)` serialises item i
 * only when it is written, so skipped items cost no JSON work.
 */
export function writeRawItems(
  db: Db,
  items: readonly IngestItem[],
  bodyOf: (index: number) => string,
  options: WriteItemsOptions,
): WriteOutcome[] {
  const s = prepare(db);
  const run = db.transaction(() => {
    const out: WriteOutcome[] = [];
    let budget = options.acceptAtMost ?? Infinity;
    const stored = findStored(s, items);
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      const key = item.type + '\u001f' + item.id;
      const existing = stored.get(key);
      if (existing?.state === 'tombstoned') {
        out.push({ status: 'skipped', reason: 'tombstoned' });
        continue;
      }
      if (existing && existing.checksum === item.checksum) {
        out.push({ status: 'skipped', reason: 'unchanged_checksum' });
        continue;
      }
      if (budget <= 0) {
        out.push({ status: 'over_limit' });
        continue;
      }
      budget--;
      const rawContentId = `raw_${nextUlid()}`;
      const language = item.language ?? options.defaultLanguage;
      if (existing) {
        s.update.run(
          rawContentId,
          item.checksum,
          item.url,
          item.canonical_url ?? null,
          language,
          bodyOf(i),
          options.connectorId,
          options.receivedAt,
          item.type,
          item.id,
        );
      } else {
        s.insert.run(
          rawContentId,
          item.type,
          item.id,
          item.checksum,
          item.url,
          item.canonical_url ?? null,
          language,
          bodyOf(i),
          options.connectorId,
          options.receivedAt,
        );
      }
      out.push({ status: 'accepted', rawContentId, update: existing !== undefined });
      // The same (type, id) again later in the batch is compared with this version.
      stored.set(key, { raw_content_id: rawContentId, checksum: item.checksum, state: 'pending' });
    }
    return out;
  });
  return run.immediate();
}

/**
 * The raw content ids of the rows still pending (accepted, not yet through content.ingest), in id
 * order; with `receivedAtMost` (RFC 3339) only those received by then.
 */
export function pendingRawContentIds(db: Db, receivedAtMost?: string): string[] {
  const rows = (
    receivedAtMost === undefined
      ? db.prepare(`SELECT raw_content_id FROM raw_items WHERE state = 'pending' ORDER BY raw_content_id`).all()
      : db
          .prepare(
            `SELECT raw_content_id FROM raw_items WHERE state = 'pending' AND received_at <= ? ORDER BY raw_content_id`,
          )
          .all(receivedAtMost)
  ) as Array<{ raw_content_id: string }>;
  return rows.map((row) => row.raw_content_id);
}
