import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { AppServices } from '../../platform/app/index.js';
import { isPostgresDb, type Db } from '../../platform/storage/index.js';
import { moveFromInbox } from '../graph/index.js';
import { lastJournalSeq, pruneJournal } from './journal.js';
import { makeScratch } from './scratch.js';

/**
 * Where graph snapshots are kept: the part of a publish target (src/output/publish, PublishTarget)
 * that the handover uses, declared here so the ingest plane does not import the output plane.
 */
export interface SnapshotStore {
  putFile(
    key: string,
    localPath: string,
    options: { contentType: string; cacheControl: string; handOver?: boolean },
  ): Promise<void>;
  /** A local folder holding the objects `names` under `prefix` (PublishTarget.localFolder: fs reads in place). */
  localFolder(prefix: string, names: readonly string[], scratchDir: string): Promise<string>;
  delete(key: string): Promise<void>;
  list(prefix: string): Promise<string[]>;
}

/** What the handover functions use: the daemon's services and its publish target as the snapshot store. */
export type HandoverDeps = Pick<AppServices, 'controlDb' | 'graphs' | 'layout' | 'logger' | 'now'> & {
  snapshots: SnapshotStore;
};

/** The folder of a website's snapshots in the store, ending in `/`. */
export function snapshotPrefix(websiteId: string): string {
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(websiteId)) throw new Error(`invalid website id for a key: ${websiteId}`);
  return `_graphs/${websiteId}/`;
}

/** `_graphs/<websiteId>/<seq, 16 digits>-<token>.sqlite`: a website's keys sort by the journal position they hold. */
export function snapshotKey(websiteId: string, journalSeq: number, token: number): string {
  return `${snapshotPrefix(websiteId)}${String(journalSeq).padStart(16, '0')}-${token}.sqlite`;
}

/** The website's recorded snapshot (graph_snapshots). */
export interface SnapshotRecord {
  objectKey: string;
  /** Every journal entry up to this seq is in the snapshot. */
  journalSeq: number;
  token: number;
  bytes: number;
  createdAt: number;
}

export function readSnapshotRecord(db: Db, websiteId: string): SnapshotRecord | undefined {
  const row = db
    .prepare(
      `SELECT object_key AS "objectKey", journal_seq AS "journalSeq", token, bytes, created_at AS "createdAt"
       FROM graph_snapshots WHERE website_id = ?`,
    )
    .get(websiteId) as Record<keyof SnapshotRecord, string | number> | undefined;
  if (!row) return undefined;
  return {
    objectKey: String(row.objectKey),
    journalSeq: Number(row.journalSeq),
    token: Number(row.token),
    bytes: Number(row.bytes),
    createdAt: Number(row.createdAt),
  };
}

/** Pages copied per step of a backup at first; multiplied when another connection's write restarted it. */
const FIRST_STEP_PAGES = 1024;
const MAX_STEP_PAGES = 0x7fffffff;

/**
 * SQLite's online backup of `db` into `file`, in steps between which the event loop runs. A write
 * by another connection (the graph writer thread) restarts it: each restart copies more pages per
 * step, so a busy graph is copied whole in the end instead of never.
 */
export async function backupGraph(db: Db, file: string): Promise<void> {
  let pages = FIRST_STEP_PAGES;
  let remaining = Infinity;
  await db.backup(file, {
    progress: ({ remainingPages }) => {
      if (remainingPages > remaining) pages = Math.min(MAX_STEP_PAGES, pages * 4);
      remaining = remainingPages;
      return pages;
    },
  });
}

export type SnapshotOutcome =
  | { status: 'recorded'; objectKey: string; journalSeq: number; bytes: number; pruned: number }
  /** lease_lost: `token` is not the live lease's; behind: a snapshot of a later journal position is recorded. */
  | { status: 'refused'; reason: 'lease_lost' | 'behind' };

/** See appendJournal: the lease row is share-locked on PostgreSQL so that an acquire waits for this commit. */
const leaseLock = (db: Db) => (isPostgresDb(db) ? ' FOR SHARE' : '');

/**
 * Takes a consistent copy of the website's graph, uploads it to the snapshot store and records it
 * in graph_snapshots (only while `token` is the live lease's, and only forward), then deletes the
 * previous snapshot's object and prunes the journal it holds. The journal's last seq is read
 * before the copy starts, and the inbox is moved into the graph after that: each entry is appended
 * inside the transaction that wrote its rows (the graph's or the inbox's), on this event loop, so
 * every entry up to it is in the copy.
 */
export async function takeGraphSnapshot(
  deps: HandoverDeps,
  websiteId: string,
  token: number,
): Promise<SnapshotOutcome> {
  const { controlDb } = deps;
  const journalSeq = lastJournalSeq(controlDb, websiteId);
  const scratch = makeScratch(deps.layout, 'snapshot');
  try {
    const file = join(scratch.dir, 'graph.sqlite');
    const graph = deps.graphs.get(websiteId);
    await moveFromInbox(graph, deps.graphs.inbox(websiteId), 'all');
    await backupGraph(graph, file);
    const bytes = statSync(file).size;
    const objectKey = snapshotKey(websiteId, journalSeq, token);
    await deps.snapshots.putFile(objectKey, file, {
      contentType: 'application/vnd.sqlite3',
      cacheControl: 'no-store',
      handOver: true,
    });
    const previous = readSnapshotRecord(controlDb, websiteId);
    const nowMs = deps.now();
    const recorded = controlDb
      .prepare(
        `INSERT INTO graph_snapshots (website_id, object_key, journal_seq, token, bytes, created_at)
         SELECT @websiteId, @objectKey, @journalSeq, @token, @bytes, @nowMs
         WHERE EXISTS (SELECT 1 FROM website_leases
                       WHERE website_id = @websiteId AND token = @token AND expires_at > @nowMs${leaseLock(controlDb)})
         ON CONFLICT (website_id) DO UPDATE SET object_key = excluded.object_key, journal_seq = excluded.journal_seq,
           token = excluded.token, bytes = excluded.bytes, created_at = excluded.created_at
         WHERE graph_snapshots.journal_seq <= excluded.journal_seq
         RETURNING website_id`,
      )
      .get({ websiteId, objectKey, journalSeq, token, bytes, nowMs });
    if (!recorded) {
      const now = readSnapshotRecord(controlDb, websiteId);
      // The upload is nobody's snapshot, unless it overwrote the recorded one's key with the same graph position.
      if (now?.objectKey !== objectKey) await deps.snapshots.delete(objectKey);
      const live = controlDb
        .prepare('SELECT 1 FROM website_leases WHERE website_id = ? AND token = ? AND expires_at > ?')
        .get(websiteId, token, nowMs);
      return { status: 'refused', reason: live ? 'behind' : 'lease_lost' };
    }
    if (previous && previous.objectKey !== objectKey) await deps.snapshots.delete(previous.objectKey);
    const pruned = pruneJournal(controlDb, websiteId, journalSeq);
    return { status: 'recorded', objectKey, journalSeq, bytes, pruned };
  } finally {
    scratch.remove();
  }
}

/** Deletes every snapshot object of the website and its graph_snapshots row (website delete, organization erase). */
export async function deleteWebsiteSnapshots(
  deps: Pick<HandoverDeps, 'controlDb' | 'snapshots'>,
  websiteId: string,
): Promise<number> {
  const keys = await deps.snapshots.list(snapshotPrefix(websiteId));
  for (const key of keys) await deps.snapshots.delete(key);
  deps.controlDb.prepare('DELETE FROM graph_snapshots WHERE website_id = ?').run(websiteId);
  return keys.length;
}

/** Runs the snapshots a graph commit asks for, one at a time per website (createSnapshotter). */
export interface Snapshotter {
  /**
   * Asks for a snapshot of the website's graph under `token`: starts one now, or when one is
   * running, exactly one more after it (with the latest token asked). Never throws: a failure is
   * logged and the next request tries again.
   */
  request(websiteId: string, token: number): void;
  /** Resolves once no snapshot runs or waits (tests, shutdown). */
  idle(): Promise<void>;
}

export function createSnapshotter(deps: HandoverDeps, take: typeof takeGraphSnapshot = takeGraphSnapshot): Snapshotter {
  const running = new Map<string, Promise<void>>();
  const again = new Map<string, number>();
  const start = (websiteId: string, token: number) => {
    const run = (async () => {
      try {
        const outcome = await take(deps, websiteId, token);
        if (outcome.status === 'refused')
          deps.logger.info({ websiteId, token, reason: outcome.reason }, 'graph snapshot not recorded');
      } catch (error) {
        deps.logger.error({ err: error, websiteId, token }, 'graph snapshot failed; the next request tries again');
      }
    })().finally(() => {
      running.delete(websiteId);
      const next = again.get(websiteId);
      if (next === undefined) return;
      again.delete(websiteId);
      start(websiteId, next);
    });
    running.set(websiteId, run);
  };
  return {
    request(websiteId, token) {
      if (running.has(websiteId)) again.set(websiteId, token);
      else start(websiteId, token);
    },
    async idle() {
      while (running.size > 0) await Promise.all(running.values());
    },
  };
}
