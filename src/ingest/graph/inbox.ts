import type Database from 'better-sqlite3';
import type { IngestItem } from '../../platform/contract/index.js';
import { commitWithoutSync, syncCommits, syncWalFile, type Db } from '../../platform/storage/index.js';
import {
  decideRawItems,
  itemKeyOf,
  moveInboxRows,
  storedRawRows,
  supersedes,
  unchangedOutcomes,
  type RawRow,
  type StoredRow,
  type WriteItemsOptions,
  type WriteOutcome,
} from './raw-items.js';
import { PENDING_RAW_SQL } from './statements.js';
import { withWriteTurn } from './write-turn.js';

/**
 * The inbox: where an ingest request writes what it accepts (graphs/<websiteId>.inbox.sqlite, a
 * database file of its own), so its acknowledgement never waits for the graph file's write lock,
 * which the graph writer thread holds for most of a large ingest (docs/ingest.md "The inbox").
 * A content.ingest job's extraction reads its rows here (rowsToExtract), and the graph writer
 * moves each batch's rows into the graph's raw_items in the transaction that writes their
 * extraction (writePendingBatch); the inbox row is deleted only once that move is on disk
 * (forgetMovedInboxRows), and a move done twice changes nothing (moveInboxRows: the inbox numbers
 * the versions it accepts, and raw_items keeps the number of the version it holds), so a crash
 * between the two loses nothing. Whatever needs items just accepted in raw_items (a delete, a
 * snapshot, a job without worker threads) moves them first (moveFromInbox); the sweep enqueues a
 * job for those no job covers.
 */

const COLUMNS =
  'raw_content_id, item_type, item_id, checksum, url, canonical_url, language, body, connector_id, received_at';

/** An inbox row: an accepted item version and the number the inbox gave it. */
export type InboxRow = RawRow & { seq: number };

/** The inbox rows among a JSON array of raw content ids, with what extraction reads of a raw item (PENDING_RAW_SQL's columns). */
const INBOX_PENDING_SQL = `SELECT raw_content_id, item_type, item_id, body, received_at FROM inbox_items
  WHERE raw_content_id IN (SELECT value FROM json_each(?))`;

/**
 * What a batch extracts, in the order of `ids`: the rows still in the inbox (when given; the graph
 * writer moves them with the batch) and the pending raw_items rows of the others (moved already:
 * by a delete, a snapshot, or an earlier attempt of the job).
 */
export function rowsToExtract(graph: Db, inbox: Db | undefined, ids: readonly string[]): RawRow[] {
  const byId = new Map<string, RawRow>();
  const read = (db: Db, sql: string, which: readonly string[]) => {
    for (const row of db.prepare(sql).all(JSON.stringify(which)) as RawRow[]) byId.set(row.raw_content_id, row);
  };
  if (inbox !== undefined) read(inbox, INBOX_PENDING_SQL, ids);
  const moved = ids.filter((id) => !byId.has(id));
  if (moved.length > 0) read(graph, PENDING_RAW_SQL, moved);
  return ids.flatMap((id) => byId.get(id) ?? []);
}
/** Rows moved per graph transaction: a content.ingest job holds at most 500. */
const MOVE_ROWS = 500;

interface InboxStatements {
  /** The inbox rows of a batch's (type, id) pairs, given as a JSON array of [type, id], oldest first. */
  findAll: Database.Statement<unknown[]>;
  insert: Database.Statement<unknown[]>;
  byRawIds: Database.Statement<unknown[]>;
  byItemIds: Database.Statement<unknown[]>;
  after: Database.Statement<unknown[]>;
  remove: Database.Statement<unknown[]>;
  rawIds: Database.Statement<unknown[]>;
  versionsOf: Database.Statement<unknown[]>;
}

const statements = new WeakMap<Db, InboxStatements>();

function prepare(inbox: Db): InboxStatements {
  let s = statements.get(inbox);
  if (!s) {
    s = {
      findAll: inbox.prepare(`SELECT i.seq, i.item_type, i.item_id, i.raw_content_id, i.checksum FROM json_each(?) t
        JOIN inbox_items i ON i.item_type = t.value ->> 0 AND i.item_id = t.value ->> 1 ORDER BY i.seq`),
      insert: inbox.prepare(`INSERT INTO inbox_items (${COLUMNS}) VALUES (${COLUMNS.replace(/\w+/g, '@$&')})`),
      byRawIds: inbox.prepare(
        `SELECT seq, ${COLUMNS} FROM inbox_items WHERE raw_content_id IN (SELECT value FROM json_each(?)) ORDER BY seq`,
      ),
      byItemIds: inbox.prepare(
        `SELECT seq, ${COLUMNS} FROM inbox_items WHERE item_id IN (SELECT value FROM json_each(?)) ORDER BY seq`,
      ),
      after: inbox.prepare(`SELECT seq, ${COLUMNS} FROM inbox_items WHERE seq > ? ORDER BY seq LIMIT ${MOVE_ROWS}`),
      remove: inbox.prepare(`DELETE FROM inbox_items WHERE seq IN (SELECT value FROM json_each(?))`),
      rawIds: inbox.prepare(`SELECT raw_content_id FROM inbox_items WHERE received_at <= ? ORDER BY seq`),
      versionsOf: inbox.prepare(
        `SELECT seq, item_type, item_id FROM inbox_items WHERE raw_content_id IN (SELECT value FROM json_each(?))`,
      ),
    };
    statements.set(inbox, s);
  }
  return s;
}

/**
 * The stored version of each item: its row in the graph's raw_items, or the inbox's newest row of
 * it where the move would take that one (not over a tombstone, nor over the same or a later version).
 */
function storedVersions(graph: Db, inbox: Db, items: readonly IngestItem[]): Map<string, StoredRow> {
  const stored = storedRawRows(graph, items);
  const rows = prepare(inbox).findAll.all(JSON.stringify(items.map((item) => [item.type, item.id]))) as Array<
    Pick<RawRow, 'item_type' | 'item_id' | 'raw_content_id' | 'checksum'> & { seq: number }
  >;
  for (const row of rows) {
    const key = itemKeyOf(row.item_type, row.item_id);
    const existing = stored.get(key);
    if (supersedes(existing, row.seq)) continue;
    stored.set(key, {
      raw_content_id: row.raw_content_id,
      checksum: row.checksum,
      state: 'pending',
      accepted_seq: row.seq,
    });
  }
  return stored;
}

/**
 * What writeInboxItems would answer when it would write nothing (every item unchanged or
 * tombstoned), found by reads: WAL readers never wait for a writer, so a re-push writes nothing.
 * null when any item would be written.
 */
export function unchangedInboxOutcomes(graph: Db, inbox: Db, items: readonly IngestItem[]): WriteOutcome[] | null {
  return unchangedOutcomes(storedVersions(graph, inbox, items), items);
}

/**
 * Decides valid items as writeRawItems does, against the graph's raw_items and the inbox, and
 * writes the accepted ones into the inbox in ONE transaction on it (run it through
 * commitWithoutSync on the inbox). Reads the graph file, never writes it: no write turn to wait for.
 */
export function writeInboxItems(
  graph: Db,
  inbox: Db,
  items: readonly IngestItem[],
  bodyOf: (index: number) => string,
  options: WriteItemsOptions,
  /** Runs inside the transaction once the outcomes are known; throwing rolls it back. */
  then: (outcomes: WriteOutcome[]) => void = () => {},
): WriteOutcome[] {
  const s = prepare(inbox);
  const run = inbox.transaction(() => {
    const out = decideRawItems(storedVersions(graph, inbox, items), items, bodyOf, options, (row) => s.insert.run(row));
    then(out);
    return out;
  });
  return run.immediate();
}

/** Which inbox rows to move: some raw content ids, the versions of some item ids, or every row. */
type InboxSelection = { rawContentIds: readonly string[] } | { itemIds: readonly string[] } | 'all';

/**
 * Moves inbox rows into the graph's raw_items (moveInboxRows), in the order accepted: each chunk in
 * one graph transaction taken between the graph writer thread's (withWriteTurn), synced, and only
 * then deleted from the inbox. Returns how many rows left the inbox.
 */
export async function moveFromInbox(graph: Db, inbox: Db, which: InboxSelection): Promise<number> {
  const s = prepare(inbox);
  let left = 0;
  let afterSeq = 0;
  for (;;) {
    const rows = (
      which === 'all'
        ? s.after.all(afterSeq)
        : 'rawContentIds' in which
          ? s.byRawIds.all(JSON.stringify(which.rawContentIds))
          : s.byItemIds.all(JSON.stringify(which.itemIds))
    ) as Array<RawRow & { seq: number }>;
    if (rows.length === 0) return left;
    await withWriteTurn(graph, () =>
      commitWithoutSync(graph, () => graph.transaction(() => moveInboxRows(graph, rows)).immediate()),
    );
    await syncCommits(graph);
    // Not synced: a delete lost to a crash only makes the next move find rows it already moved.
    commitWithoutSync(inbox, () => s.remove.run(JSON.stringify(rows.map((row) => row.seq))));
    left += rows.length;
    if (which !== 'all') return left;
    afterSeq = rows[rows.length - 1]!.seq;
  }
}

/** The inbox rows of these raw content ids, bodies included, oldest first (for moveInboxRows). */
export function inboxRowsOf(inbox: Db, rawContentIds: readonly string[]): InboxRow[] {
  return prepare(inbox).byRawIds.all(JSON.stringify(rawContentIds)) as InboxRow[];
}

/**
 * Deletes the inbox rows among `rawContentIds` that the graph has taken in: moved by the graph
 * writer thread with their batch (writePendingBatch), or passed by a tombstone or a later version.
 * The graph's state is read first, then its WAL synced (the writer thread commits without an
 * fsync), then the rows deleted: a row leaves the inbox only once the graph holds it on disk.
 * A row the graph has not taken (its batch failed) stays for the job's next attempt or the sweep.
 */
export async function forgetMovedInboxRows(graph: Db, inbox: Db, rawContentIds: readonly string[]): Promise<number> {
  const s = prepare(inbox);
  const rows = s.versionsOf.all(JSON.stringify(rawContentIds)) as Array<
    Pick<InboxRow, 'seq' | 'item_type' | 'item_id'>
  >;
  if (rows.length === 0) return 0;
  const stored = storedRawRows(
    graph,
    rows.map((row) => ({ type: row.item_type, id: row.item_id })),
  );
  const taken = rows.filter((row) => supersedes(stored.get(itemKeyOf(row.item_type, row.item_id)), row.seq));
  if (taken.length === 0) return 0;
  await syncWalFile(graph.name);
  // Not synced: a delete lost to a crash only makes the next move find rows the graph already holds.
  commitWithoutSync(inbox, () => s.remove.run(JSON.stringify(taken.map((row) => row.seq))));
  return taken.length;
}

/** The raw content ids in the inbox (accepted, not yet moved) received by `receivedAtMost` (RFC 3339), in the order accepted. */
export function inboxRawContentIds(inbox: Db, receivedAtMost: string): string[] {
  return (prepare(inbox).rawIds.all(receivedAtMost) as Array<{ raw_content_id: string }>).map(
    (row) => row.raw_content_id,
  );
}

/** Deletes every row of the inbox (a restored graph replaces what an earlier tenure accepted). */
export function emptyInbox(inbox: Db): void {
  inbox.prepare('DELETE FROM inbox_items').run();
}

/**
 * Rewrites the inbox file and empties its WAL (as compactGraph does for the graph), so the bytes
 * of rows moved out of it, an erased item's among them, are in neither file any more.
 */
export function compactInbox(inbox: Db): void {
  inbox.exec('VACUUM');
  if (!inbox.memory) inbox.pragma('wal_checkpoint(TRUNCATE)');
}
