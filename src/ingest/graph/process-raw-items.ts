import { raiseWalAutocheckpoint, type Db } from '../../platform/storage/index.js';
import { isStorageFault } from '../../platform/errors/index.js';
import type { WebsiteInfo } from '../../control/records/index.js';
import type { FieldMapping } from '../../platform/contract/index.js';
import { applyContributionRows, refreshSourceTrust } from './apply-contribution.js';
import type { ContributionRows } from './contribution-rows.js';
import { describeError, extractRows, type ExtractOutcome, type RawRow } from './extract-row.js';
import { readPendingExtraction, type ExtractionPool } from './extraction-pool.js';
import type { PendingExtraction } from './extract-worker.js';
import { GraphWriterStopped, type Extracted, type GraphWriter } from './graph-writer.js';
import { addResult, emptyResult, WARNED_LISTED, type ProcessRawItemsResult } from './run-result.js';
import type { ItemErrorCode } from './item-errors.js';
import { writeTurnOf } from './write-turn.js';
import { inboxRowsOf, rowsToExtract, type InboxRow } from './inbox.js';
import { moveInboxRows } from './raw-items.js';
import { emptySearchTouched, mergeSearchTouched, refreshSearchDocs, type SearchTouched } from './search-docs.js';
import { graphStatements } from './statements.js';
import { WriteQueue } from './write-queue.js';

export type { ProcessRawItemsResult };

export interface ProcessRawItemsOptions {
  /** The website's field mappings, passed to the extractor. Default none. */
  mappings?: FieldMapping[];
  /** RFC 3339 UTC time written to processed_at. */
  now: string;
  /** Items per write transaction. Default 500 (a content.ingest job holds at most 500). */
  batchSize?: number;
  /**
   * Called with each batch's part of the result once the batch committed, in batch order: the
   * content.ingest job records the batch's item errors with it, so a run that fails later keeps them.
   */
  onCommitted?: (part: ProcessRawItemsResult) => void;
}

/** An item a batch could not write, by raw content id, until its row is marked failed. */
type BatchFailures = Map<string, { itemKey: string; code: ItemErrorCode; error: string }>;

/**
 * The content.ingest work: for each pending raw item, parse the accepted IngestItem, extract its
 * contribution and merge it into the graph, then mark the row processed. A bad item (unreadable
 * body, extractor or store error) is marked failed with last_error and its previous contribution
 * is kept; it never stops the batch. Items are written in batches, one transaction each, all the
 * batch's contributions merged at once (applyContributions); when that fails, the batch is merged
 * again item by item, each in a savepoint, so a failure rolls back only its own rows.
 */
export function processRawItems(
  db: Db,
  site: WebsiteInfo,
  rawContentIds: readonly string[],
  options: ProcessRawItemsOptions,
): ProcessRawItemsResult {
  const result = emptyResult();
  const batches = batchesOf(rawContentIds, options);
  for (const batch of batches) {
    const part = emptyResult();
    writeBatch(db, () => {
      const rows = readPending(db, batch);
      commitBatch(db, site, batch, rows, extractRows(rows, site, options.mappings ?? []), options, part);
    });
    addResult(result, part);
    options.onCommitted?.(part);
  }
  return result;
}

/**
 * processRawItems with extraction in worker threads: while this thread writes batch n, the pool
 * extracts the next ones. Batches are written through the database's write queue, which merges
 * those that wait at once (this run's and other runs' on the same graph) into one transaction.
 * The workers read the rows themselves from the graph file, or from the inbox for rows still there
 * (this thread then never reads the bodies nor copies them over); a database without a file sends them. Given a graph writer
 * thread (graph-writer.ts), a file's batches are written there instead, with a write queue of
 * its own, and this thread only passes the extraction worker's answer on to it, unread: the event
 * loop is then free for requests while the graph is written. A batch the writer thread could not
 * take (it ended) is written here.
 * The rows are checked again when their batch is written: a row updated or tombstoned meanwhile
 * (its raw_content_id changes or it is no longer pending) is skipped, as if it had not been
 * pending. Same graph as processRawItems.
 */
export async function processRawItemsConcurrently(
  db: Db,
  site: WebsiteInfo,
  rawContentIds: readonly string[],
  options: ProcessRawItemsOptions & {
    pool: ExtractionPool;
    writer?: GraphWriter;
    /**
     * The website's inbox, for a graph file: rows of `rawContentIds` still there are read from it
     * and moved into raw_items by their batch's write (the caller deletes them there afterwards:
     * forgetMovedInboxRows). Without it every row must be in raw_items already.
     */
    inbox?: Db;
  },
): Promise<ProcessRawItemsResult> {
  const result = emptyResult();
  const file = db.memory || db.name === '' ? undefined : db.name;
  const writer = file === undefined ? undefined : options.writer;
  const inbox = file === undefined ? undefined : options.inbox;
  const batches = batchesOf(rawContentIds, options);
  const mappings = options.mappings ?? [];
  const start = (batch: string[]) => {
    let extraction: Promise<Extracted>;
    if (file === undefined) {
      const rows = readPending(db, batch);
      extraction = options.pool.extract(site, mappings, rows).then((outcomes) => ({ rows, outcomes }));
    } else if (writer) extraction = options.pool.extractPendingText(site, mappings, file, batch, inbox?.name);
    else extraction = options.pool.extractPending(site, mappings, file, batch, inbox?.name);
    // A worker that fails leaves its batch to this thread (caught
    // at once: a rejection not yet awaited would end the process).
    return { batch, extraction: extraction.catch(() => null) };
  };
  const inFlight = batches.slice(0, options.pool.size + 1).map(start);
  const writeHere = (batch: string[], extracted: PendingExtraction) =>
    writeQueueOf(db).write(batch.length, () =>
      writePendingBatch(db, site, batch, extracted, options.now, inbox ? inboxRowsOf(inbox, batch) : []),
    );
  const writes: Array<Promise<void>> = [];
  let failure: { error: unknown } | undefined;
  for (let next = inFlight.length; inFlight.length > 0 && failure === undefined; next++) {
    const { batch, extraction } = inFlight.shift()!;
    const done = await extraction;
    const extracted = done ?? extractHere(db, site, mappings, batch, inbox);
    if (next < batches.length) inFlight.push(start(batches[next]!));
    const written = writer
      ? writer
          .write({
            file: file!,
            turn: writeTurnOf(db),
            site,
            batch,
            extracted,
            now: options.now,
            inboxFile: inbox?.name,
          })
          .catch((error: unknown) => {
            if (!(error instanceof GraphWriterStopped)) throw error;
            return writeHere(batch, extracted instanceof Uint8Array ? readPendingExtraction(extracted) : extracted);
          })
      : writeHere(batch, extracted as PendingExtraction);
    // Results are added in batch order (the queues write in submission
    // order); the first error ends the run once its writes settle.
    writes.push(
      written.then(
        (part) => {
          addResult(result, part);
          options.onCommitted?.(part);
        },
        (error: unknown) => void (failure ??= { error }),
      ),
    );
    if (writes.length > WRITES_AHEAD) await writes[writes.length - 1 - WRITES_AHEAD];
  }
  await Promise.all(writes);
  if (failure !== undefined) throw failure.error;
  return result;
}

/** The batch's rows (in the inbox, or pending), read and extracted in this thread (when its extraction worker failed). */
function extractHere(
  db: Db,
  site: WebsiteInfo,
  mappings: FieldMapping[],
  batch: readonly string[],
  inbox: Db | undefined,
): PendingExtraction {
  const rows = rowsToExtract(db, inbox, batch);
  return { rows, outcomes: extractRows(rows, site, mappings) };
}

/**
 * One batch's write, inside the write transaction: moves the batch's rows still in the inbox
 * (`moves`, read from it beforehand) into raw_items, then merges the extracted rows still pending
 * and marks them processed or failed. Returns what it did (added to the run's result once committed).
 */
export function writePendingBatch(
  db: Db,
  site: WebsiteInfo,
  batch: readonly string[],
  extracted: PendingExtraction,
  now: string,
  moves: readonly InboxRow[] = [],
): ProcessRawItemsResult {
  if (moves.length > 0) moveInboxRows(db, moves);
  const part = emptyResult();
  const stillPending = new Set(graphStatements(db).pendingIds.all(JSON.stringify(batch)) as string[]);
  const current = extracted.rows.flatMap((row, i) =>
    stillPending.has(row.raw_content_id) ? [[row, extracted.outcomes[i]!] as const] : [],
  );
  commitBatch(
    db,
    site,
    batch,
    current.map(([row]) => row),
    current.map(([, outcome]) => outcome),
    { now },
    part,
  );
  return part;
}

/**
 * Batches of one run that may wait for the writer at once: enough for the write queue to merge
 * them into one transaction, few enough that extraction running ahead of a slow writer holds a
 * bounded number of extracted batches.
 */
const WRITES_AHEAD = 3;

const writeQueues = new WeakMap<Db, WriteQueue>();

/** The database's write queue: every content.ingest run of a website shares one, so their batches merge. */
export function writeQueueOf(db: Db): WriteQueue {
  let queue = writeQueues.get(db);
  if (queue === undefined) {
    queue = new WriteQueue((writes) => writeBatch(db, writes));
    writeQueues.set(db, queue);
  }
  return queue;
}

/** The ids, each once, in write batches. */
function batchesOf(rawContentIds: readonly string[], options: ProcessRawItemsOptions): string[][] {
  const ids = [...new Set(rawContentIds)];
  const size = Math.max(1, options.batchSize ?? 500);
  const batches: string[][] = [];
  for (let start = 0; start < ids.length; start += size) batches.push(ids.slice(start, start + size));
  return batches;
}

/**
 * The search documents each connection's write transaction (writeBatch) has left to refresh: its
 * batches add what they touched, and the transaction refreshes them once, before it commits. Per
 * batch, a merged transaction of four batches flushed four FTS5 segments and re-indexed a record
 * its batches share once for each.
 */
const searchAtCommit = new WeakMap<Db, SearchTouched>();

/**
 * One batch's write transaction, committed without an fsync (synchronous=NORMAL): everything it
 * writes is derived from raw_items rows it marks processed in the same transaction, so a commit
 * lost to a power cut leaves them pending and the daemon's start-up sweep processes them again.
 * The connection keeps up to GRAPH_WAL_AUTOCHECKPOINT_BYTES of WAL before a commit checkpoints
 * (copies the WAL into the file and fsyncs it): at SQLite's default most batches did. The graph
 * writer thread's connection leaves its checkpoints to a thread of their own (wal-checkpoints.ts).
 */
export function writeBatch(db: Db, write: () => void): void {
  raiseWalAutocheckpoint(db);
  const synchronous = db.pragma('synchronous', { simple: true }) as number;
  db.pragma('synchronous = NORMAL');
  try {
    db.transaction(() => {
      const search = emptySearchTouched();
      searchAtCommit.set(db, search);
      try {
        write();
      } finally {
        searchAtCommit.delete(db);
      }
      refreshSearchDocs(db, search);
    }).immediate();
  } finally {
    db.pragma(`synchronous = ${synchronous}`);
  }
}

function readPending(db: Db, batch: readonly string[]): RawRow[] {
  const byId = new Map(
    (graphStatements(db).pendingRaw.all(JSON.stringify(batch)) as RawRow[]).map((row) => [row.raw_content_id, row]),
  );
  return batch.flatMap((id) => byId.get(id) ?? []);
}

/**
 * Merges a batch's extracted rows, marks them processed or failed, and has their search documents
 * refreshed (by its transaction, writeBatch, when there is one; else at once). First the sources
 * already stored take the site's current trust (it changes with verification), in the same
 * transaction: the run's extraction never waits for a write of its own.
 */
function commitBatch(
  db: Db,
  site: WebsiteInfo,
  batch: readonly string[],
  rows: readonly RawRow[],
  outcomes: readonly ExtractOutcome[],
  options: Pick<ProcessRawItemsOptions, 'now'>,
  result: ProcessRawItemsResult,
): void {
  const s = graphStatements(db);
  refreshSourceTrust(db, site);
  result.skipped += batch.length - rows.length;
  const extracted: Array<{ rawContentId: string; rows: ContributionRows }> = [];
  const failures: BatchFailures = new Map();
  rows.forEach((row, i) => {
    const outcome = outcomes[i]!;
    if ('rows' in outcome) extracted.push({ rawContentId: row.raw_content_id, rows: outcome.rows });
    else
      failures.set(row.raw_content_id, {
        itemKey: `${row.item_type}:${row.item_id}`,
        code: outcome.code,
        error: outcome.error,
      });
  });
  // The batch's records are re-indexed once, before it commits (src/ingest/graph/search-docs.ts).
  const search = emptySearchTouched();
  const merged = mergeBatch(db, site, extracted, search, failures);
  s.markProcessed.run(options.now, JSON.stringify(merged.map((e) => e.rawContentId)));
  for (const { rows: item } of merged) {
    result.processed++;
    if (item.warnings.length === 0) continue;
    result.warned++;
    if (result.warnings.length < WARNED_LISTED)
      result.warnings.push({ itemKey: item.itemKey, warnings: item.warnings });
  }
  for (const row of rows) {
    const failure = failures.get(row.raw_content_id);
    if (!failure) continue;
    const marked = s.markFailed.get(options.now, failure.error, row.raw_content_id) as { url: string } | undefined;
    result.failed++;
    result.failures.push({ rawContentId: row.raw_content_id, url: marked?.url ?? null, ...failure });
  }
  const atCommit = searchAtCommit.get(db);
  if (atCommit) mergeSearchTouched(atCommit, search);
  else refreshSearchDocs(db, search);
}

/**
 * Merges the batch's contributions in one go; if that throws, item by item, each in its own
 * savepoint, recording the ones that fail. Returns the ones merged.
 */
function mergeBatch<T extends { rawContentId: string; rows: ContributionRows }>(
  db: Db,
  site: WebsiteInfo,
  extracted: T[],
  search: SearchTouched,
  failures: BatchFailures,
): T[] {
  const batchSearch = emptySearchTouched();
  try {
    applyContributionRows(
      db,
      site,
      extracted.map((e) => e.rows),
      batchSearch,
    );
    mergeSearchTouched(search, batchSearch);
    return extracted;
  } catch (error) {
    // A full or failing disk is no item's fault: the batch fails whole and its job runs again later.
    if (isStorageFault(error)) throw error;
    const merged: T[] = [];
    for (const e of extracted) {
      try {
        applyContributionRows(db, site, [e.rows], search);
        merged.push(e);
      } catch (error) {
        if (isStorageFault(error)) throw error;
        failures.set(e.rawContentId, {
          itemKey: e.rows.itemKey,
          code: 'item.merge_failed',
          error: `${describeError(error)}; the item's previous records are kept: push it again, and report this if it persists`,
        });
      }
    }
    return merged;
  }
}
