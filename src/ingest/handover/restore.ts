import { copyFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { DeleteReason } from '../../platform/contract/index.js';
import {
  GRAPH_DB_OPTIONS,
  graphDbPath,
  openDatabase,
  raiseInboxSequence,
  type Db,
} from '../../platform/storage/index.js';
import {
  emptyInbox,
  pendingRawContentIds,
  tombstoneItems,
  tombstonedWithContribution,
  withWriteTurn,
  writeRawItems,
} from '../graph/index.js';
import { LeaseLostError, readJournal, type JournalRecord } from './journal.js';
import { makeScratch } from './scratch.js';
import {
  backupGraph,
  readSnapshotRecord,
  snapshotPrefix,
  type HandoverDeps,
  type SnapshotRecord,
} from './snapshots.js';

export interface RestoreOutcome {
  /** The snapshot the graph was restored from; undefined when the website had none (the graph starts empty). */
  snapshot: SnapshotRecord | undefined;
  /** Journal entries replayed onto it. */
  replayed: number;
  /** Rows the replay accepted that are pending: one content.ingest job's raw_content_ids. */
  rawContentIds: string[];
  /** Rows already pending in the snapshot (taken before their content.ingest ran): to enqueue too. */
  pendingRawContentIds: string[];
  /** Items tombstoned by the replay, or tombstoned in the snapshot with their contribution still there. */
  removed: Array<{ type: string; id: string }>;
  /** gdpr_erasure when any of `removed` was erased (the job then erases their records), else the last delete's reason. */
  reason?: DeleteReason;
}

/** Journal entries replayed per graph transaction. */
const REPLAY_BATCH = 100;

/**
 * Makes this daemon's graph of the website the one its former owners acknowledged, for a daemon
 * that just began a tenure (`token`): the latest snapshot (or an empty graph: what an earlier
 * tenure on this daemon left must not survive, its inbox included: the journal holds whatever
 * that tenure acknowledged), then every journal entry after it, in order. A
 * replayed entry the snapshot holds changes nothing (an unchanged checksum is skipped; a
 * tombstone is rewritten as it was). The caller enqueues content.ingest for what it answers.
 */
export async function restoreGraph(deps: HandoverDeps, websiteId: string, token: number): Promise<RestoreOutcome> {
  const { controlDb } = deps;
  const live = controlDb
    .prepare('SELECT 1 FROM website_leases WHERE website_id = ? AND token = ? AND expires_at > ?')
    .get(websiteId, token, deps.now());
  if (!live) throw new LeaseLostError(websiteId, token);
  const snapshot = readSnapshotRecord(controlDb, websiteId);
  const graph = deps.graphs.get(websiteId);
  const scratch = makeScratch(deps.layout, 'restore');
  try {
    const file = join(scratch.dir, 'graph.sqlite');
    if (snapshot) await download(deps, websiteId, snapshot, scratch.dir, file);
    // Opened as a graph: an older snapshot's schema is migrated here, a newer one refused (SchemaTooNewError).
    const source = openDatabase(file, GRAPH_DB_OPTIONS);
    try {
      matchPageSize(source, graph.pragma('page_size', { simple: true }) as number);
      // Copied INTO the live file through SQLite's backup API, not by replacing the file: the pool's, the
      // writer thread's and the readers' open connections then all see the restored graph.
      await backupGraph(source, graphDbPath(deps.layout, websiteId));
    } finally {
      source.close();
    }
  } finally {
    scratch.remove();
  }
  const inbox = deps.graphs.inbox(websiteId);
  emptyInbox(inbox);
  raiseInboxSequence(graph, inbox);
  return replay(deps, graph, websiteId, snapshot);
}

/** Downloads the snapshot's object into `file` (fs answers its own folder: the object is copied out, never opened there). */
async function download(
  deps: HandoverDeps,
  websiteId: string,
  snapshot: SnapshotRecord,
  scratchDir: string,
  file: string,
): Promise<void> {
  const prefix = snapshotPrefix(websiteId);
  if (!snapshot.objectKey.startsWith(prefix))
    throw new Error(`snapshot key ${snapshot.objectKey} is not under ${prefix}`);
  const name = snapshot.objectKey.slice(prefix.length);
  const downloads = join(scratchDir, 'download');
  const folder = await deps.snapshots.localFolder(prefix, [name], downloads);
  const found = join(folder, name);
  if (!existsSync(found))
    throw new Error(`the snapshot ${snapshot.objectKey} of website ${websiteId} is missing from the snapshot store`);
  if (resolve(found) !== resolve(file)) copyFileSync(found, file);
}

/**
 * A WAL database keeps its page size, and SQLite's backup into one fails when the sizes differ: the
 * scratch copy is rewritten at the live file's size instead (a graph made before 16 KiB pages).
 */
function matchPageSize(source: Db, pageSize: number): void {
  if ((source.pragma('page_size', { simple: true }) as number) === pageSize) return;
  source.pragma('journal_mode = DELETE');
  source.pragma(`page_size = ${pageSize}`);
  source.exec('VACUUM');
}

async function replay(
  deps: HandoverDeps,
  graph: Db,
  websiteId: string,
  snapshot: SnapshotRecord | undefined,
): Promise<RestoreOutcome> {
  const accepted = new Set<string>();
  const removed = new Map<string, { type: string; id: string }>();
  let erased = false;
  let lastReason: DeleteReason | undefined;
  let replayed = 0;
  const apply = (record: JournalRecord) => {
    const entry = record.entry;
    if (entry.kind === 'items') {
      const outcomes = writeRawItems(
        graph,
        entry.items.map((i) => i.item),
        (i) => entry.items[i]!.raw,
        // No acceptAtMost: the quota was charged when the owner accepted the items.
        { connectorId: entry.connectorId, defaultLanguage: entry.defaultLanguage, receivedAt: entry.receivedAt },
      );
      for (const o of outcomes) if (o.status === 'accepted') accepted.add(o.rawContentId);
    } else {
      const outcome = tombstoneItems(graph, entry.ids, entry.reason, entry.at);
      for (const item of outcome.removed) removed.set(`${item.type}:${item.id}`, item);
      if (outcome.removed.length > 0) {
        erased ||= entry.reason === 'gdpr_erasure';
        lastReason = entry.reason;
      }
    }
  };
  const flush = (batch: JournalRecord[]) =>
    withWriteTurn(graph, () => graph.transaction(() => batch.forEach(apply)).immediate());
  let batch: JournalRecord[] = [];
  for (const record of readJournal(deps.controlDb, websiteId, snapshot?.journalSeq ?? 0)) {
    batch.push(record);
    replayed++;
    if (batch.length === REPLAY_BATCH) {
      await flush(batch);
      batch = [];
    }
  }
  if (batch.length > 0) await flush(batch);
  for (const item of tombstonedWithContribution(graph)) {
    removed.set(`${item.type}:${item.id}`, { type: item.type, id: item.id });
    if (item.reason === 'gdpr_erasure') erased = true;
    lastReason ??= 'source_deleted';
  }
  const pending = pendingRawContentIds(graph);
  const reason: DeleteReason | undefined = erased ? 'gdpr_erasure' : lastReason;
  return {
    snapshot,
    replayed,
    rawContentIds: pending.filter((id) => accepted.has(id)),
    pendingRawContentIds: pending.filter((id) => !accepted.has(id)),
    removed: [...removed.values()],
    ...(reason ? { reason } : {}),
  };
}
