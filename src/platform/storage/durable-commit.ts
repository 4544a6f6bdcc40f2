import { open } from 'node:fs/promises';
import type { Db } from './sqlite.js';

/** Per WAL connection: commits made without an fsync, and the WAL sync that covers them. */
interface WalSync {
  /** Counts the commits made through commitWithoutSync. */
  committed: number;
  /** Every commit up to this count is on disk. */
  synced: number;
  /** The sync running now, and the commit count it covers (those made before it started). */
  running?: { done: Promise<void>; covers: number };
  /** The sync that starts when the running one ends: every caller arriving meanwhile shares it. */
  next?: Promise<void>;
}

const walSyncs = new WeakMap<Db, WalSync>();

/**
 * Runs `write` (SQLite transactions on a WAL database) without an fsync inside SQLite
 * (synchronous=NORMAL), so the event loop is not blocked on the disk; the caller awaits
 * syncCommits(db) before it answers. The first write on a connection keeps its own setting (FULL),
 * so SQLite also syncs the directory entry of a newly created WAL file; a database that is not in
 * WAL mode, or a write inside a transaction already open, also keeps it (SQLite cannot change the
 * level inside a transaction). `wroteRows(result)` says whether the write changed anything.
 */
export function commitWithoutSync<T>(db: Db, write: () => T, wroteRows: (result: T) => boolean = () => true): T {
  const state = walSyncs.get(db);
  if (!state || db.inTransaction) {
    const result = write();
    if (
      !state &&
      !db.inTransaction &&
      wroteRows(result) &&
      !db.memory &&
      db.pragma('journal_mode', { simple: true }) === 'wal'
    )
      walSyncs.set(db, { committed: 0, synced: 0 });
    return result;
  }
  const level = db.pragma('synchronous', { simple: true }) as number;
  db.pragma('synchronous = NORMAL');
  let result: T;
  try {
    result = write();
  } finally {
    db.pragma(`synchronous = ${level}`);
  }
  if (wroteRows(result)) state.committed++;
  return result;
}

/**
 * Resolves once every commit made through commitWithoutSync on `db` before this call is on disk:
 * the WAL file is fdatasync'ed on the libuv thread pool, the same system call synchronous=FULL
 * makes after writing a commit frame, so what is acknowledged after this survives power loss
 * exactly as with FULL (docs/contract.md#durability). Concurrent callers share syncs: one running
 * covers the commits made before it started, and every caller arriving meanwhile shares the one
 * after it. Nothing to sync resolves at once.
 */
export function syncCommits(db: Db): Promise<void> {
  const state = walSyncs.get(db);
  if (!state) return Promise.resolve();
  const target = state.committed;
  if (state.synced >= target) return Promise.resolve();
  if (state.running && state.running.covers >= target) return state.running.done;
  if (state.next) return state.next;
  if (!state.running) return startSync(db, state);
  const after = state.running.done
    .catch(() => undefined)
    .then(() => {
      state.next = undefined;
      return startSync(db, state);
    });
  state.next = after;
  return after;
}

function startSync(db: Db, state: WalSync): Promise<void> {
  const covers = state.committed;
  const done = syncWal(db).then(() => {
    state.synced = Math.max(state.synced, covers);
  });
  state.running = { done, covers };
  const clear = () => {
    if (state.running?.done === done) state.running = undefined;
  };
  done.then(clear, clear);
  return done;
}

/**
 * Runs `write` (one SQLite transaction on a WAL database) and resolves once its commit is on
 * disk, without blocking the event loop on the fsync (commitWithoutSync, then syncCommits).
 * When the transaction changed nothing, this still waits for the commits not yet synced, so an
 * answer based on rows it read (unchanged) is never sent before those rows are on disk.
 */
export async function commitDurably<T>(db: Db, write: () => T, wroteRows: (result: T) => boolean): Promise<T> {
  const result = commitWithoutSync(db, write, wroteRows);
  await syncCommits(db);
  return result;
}

/**
 * Resolves once every commit made to the database file before this call, by any connection (the
 * graph writer thread's, which commit with synchronous=NORMAL), is on disk: fdatasync of its WAL.
 * Without a WAL file there is nothing to sync (a checkpoint syncs the database file first).
 */
export async function syncWalFile(file: string): Promise<void> {
  let wal;
  try {
    wal = await open(`${file}-wal`, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  try {
    await wal.datasync();
  } finally {
    await wal.close();
  }
}

function syncWal(db: Db): Promise<void> {
  return syncWalFile(db.name);
}
