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
  /** The stored row of one (type, id). */
  findOne: Database.Statement<unknown[]>;
  insert: Database.Statement<unknown[]>;
  update: Database.Statement<unknown[]>;
}

const statements = new WeakMap<Db, Statements>();
const nextUlid = monotonicFactory();

function prepare(db: Db): Statements {
  let s = statements.get(db);
  if (!s) {
    s = {
      findAll:
        db.prepare(`SELECT r.item_type, r.item_id, r.raw_content_id, r.checksum, r.state, r.accepted_seq FROM json_each(?) t
        JOIN raw_items r ON r.item_type = t.value ->> 0 AND r.item_id = t.value ->> 1`),
      findOne: db.prepare(
        `SELECT raw_content_id, checksum, state, accepted_seq FROM raw_items WHERE item_type = ? AND item_id = ?`,
      ),
      insert: db.prepare(
        `INSERT INTO raw_items (raw_content_id, item_type, item_id, checksum, url, canonical_url, language, body, state, connector_id, received_at, accepted_seq)
         VALUES (@raw_content_id, @item_type, @item_id, @checksum, @url, @canonical_url, @language, @body, 'pending', @connector_id, @received_at, @accepted_seq)`,
      ),
      update: db.prepare(
        `UPDATE raw_items SET raw_content_id = @raw_content_id, checksum = @checksum, url = @url, canonical_url = @canonical_url,
           language = @language, body = @body, state = 'pending', connector_id = @connector_id, received_at = @received_at,
           accepted_seq = @accepted_seq, processed_at = NULL, last_error = NULL WHERE item_type = @item_type AND item_id = @item_id`,
      ),
    };
    statements.set(db, s);
  }
  return s;
}

/** What decides an item against its stored version. */
export interface StoredRow {
  raw_content_id: string;
  checksum: string;
  state: string;
  /** The inbox's number of this version (src/ingest/graph/inbox.ts); null when it came otherwise. */
  accepted_seq: number | null;
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
function findStored(s: Statements, items: ReadonlyArray<{ type: string; id: string }>): Map<string, StoredRow> {
  const stored = new Map<string, StoredRow>();
  for (const row of s.findAll.all(JSON.stringify(items.map((item) => [item.type, item.id]))) as FoundRow[])
    stored.set(itemKeyOf(row.item_type, row.item_id), row);
  return stored;
}

/**
 * What writeRawItems would answer against `stored` when it would write nothing: every item is
 * tombstoned or has its stored checksum. null when any item would be written (or over the limit).
 */
export function unchangedOutcomes(stored: Map<string, StoredRow>, items: readonly IngestItem[]): WriteOutcome[] | null {
  const out: WriteOutcome[] = [];
  for (const item of items) {
    const existing = stored.get(itemKeyOf(item.type, item.id));
    if (existing?.state === 'tombstoned') out.push({ status: 'skipped', reason: 'tombstoned' });
    else if (existing && existing.checksum === item.checksum)
      out.push({ status: 'skipped', reason: 'unchanged_checksum' });
    else return null;
  }
  return out;
}

/** The stored rows of the items' (type, id) pairs in the graph's raw_items, keyed by itemKeyOf. */
export function storedRawRows(db: Db, items: ReadonlyArray<{ type: string; id: string }>): Map<string, StoredRow> {
  return findStored(prepare(db), items);
}

/**
 * Decides each valid item against what is stored (`stored`, updated as the batch goes): new
 * (type, id) accepted; same checksum skipped unchanged_checksum; tombstoned ids skipped; a changed
 * checksum accepted as an update with a new raw_content_id; past `acceptAtMost`, over_limit.
 * `store` writes each accepted row; `bodyOf(i)` serialises item i only when it is written, so
 * skipped items cost no JSON work.
 */
export function decideRawItems(
  stored: Map<string, StoredRow>,
  items: readonly IngestItem[],
  bodyOf: (index: number) => string,
  options: WriteItemsOptions,
  store: (row: RawRow, update: boolean) => void,
): WriteOutcome[] {
  const out: WriteOutcome[] = [];
  let budget = options.acceptAtMost ?? Infinity;
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    const key = itemKeyOf(item.type, item.id);
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
    store(rawRowOf(item, rawContentId, bodyOf(i), options), existing !== undefined);
    out.push({ status: 'accepted', rawContentId, update: existing !== undefined });
    // The same (type, id) again later in the batch is compared with this version.
    stored.set(key, { raw_content_id: rawContentId, checksum: item.checksum, state: 'pending', accepted_seq: null });
  }
  return out;
}

/** The map key of an item's (type, id). */
export function itemKeyOf(type: string, id: string): string {
  return type + '\u001f' + id;
}

/**
 * Writes valid items into raw_items in ONE transaction (run it through commitDurably), after one
 * lookup of every item's stored row (an unchanged item costs a map lookup, no statement), as
 * decideRawItems decides them.
 */
export function writeRawItems(
  db: Db,
  items: readonly IngestItem[],
  bodyOf: (index: number) => string,
  options: WriteItemsOptions,
): WriteOutcome[] {
  const s = prepare(db);
  const run = db.transaction(() =>
    decideRawItems(findStored(s, items), items, bodyOf, options, (row, update) => storeRawRow(s, row, null, update)),
  );
  return run.immediate();
}

/** The columns of an accepted item version, as raw_items and the inbox (src/ingest/graph/inbox.ts) hold it. */
export interface RawRow {
  raw_content_id: string;
  item_type: string;
  item_id: string;
  checksum: string;
  url: string;
  canonical_url: string | null;
  language: string;
  body: string;
  connector_id: string | null;
  received_at: string;
}

/**
 * Writes inbox rows (each with its inbox number, `seq`) into raw_items (call inside a
 * transaction), in the order given: a row whose (type, id) is tombstoned, or already holds this
 * version or a later one (accepted_seq at least `seq`), is left out, so moving a row twice, or an
 * older version after a newer one, changes nothing. Returns how many rows were written.
 */
export function moveInboxRows(db: Db, rows: ReadonlyArray<RawRow & { seq: number }>): number {
  const s = prepare(db);
  let moved = 0;
  for (const row of rows) {
    const existing = s.findOne.get(row.item_type, row.item_id) as StoredRow | undefined;
    if (supersedes(existing, row.seq)) continue;
    storeRawRow(s, row, row.seq, existing !== undefined);
    moved++;
  }
  return moved;
}

/**
 * Whether the graph's row of an item makes inbox version `seq` of it obsolete: the item is
 * tombstoned, or the row holds that version or a later one (a row with no inbox number is older than any).
 */
export function supersedes(stored: Pick<StoredRow, 'state' | 'accepted_seq'> | undefined, seq: number): boolean {
  if (stored === undefined) return false;
  return stored.state === 'tombstoned' || (stored.accepted_seq !== null && stored.accepted_seq >= seq);
}

/** The columns of an accepted item version. */
function rawRowOf(item: IngestItem, rawContentId: string, body: string, options: WriteItemsOptions): RawRow {
  return {
    raw_content_id: rawContentId,
    item_type: item.type,
    item_id: item.id,
    checksum: item.checksum,
    url: item.url,
    canonical_url: item.canonical_url ?? null,
    language: item.language ?? options.defaultLanguage,
    body,
    connector_id: options.connectorId,
    received_at: options.receivedAt,
  };
}

/** Inserts or updates (`update`: the (type, id) has a row) one row of raw_items, pending again. */
function storeRawRow(s: Statements, row: RawRow, acceptedSeq: number | null, update: boolean): void {
  (update ? s.update : s.insert).run({ ...row, accepted_seq: acceptedSeq });
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
