import { open } from 'node:fs/promises';
import type { Db } from '../storage/sqlite.js';

const walSynced = new WeakSet<Db>();
/** The latest WAL sync still running per database: it covers every commit made before it started. */
const syncInFlight = new WeakMap<Db, Promise<void>>();

/**
 * Runs `write` (one SQLite transaction on a WAL database) and resolves once its commit is on
 * disk, without blocking the event loop on the fsync. The transaction commits with
 * synchronous=NORMAL (no fsync inside SQLite), then the WAL file is fdatasync'ed on the libuv
 * thread pool: the same system call synchronous=FULL makes after writing the commit frame, so an
 * answer sent after this resolves survives power loss exactly as before (docs/contract.md#durability), while the next request is parsed meanwhile. The first write on a connection
 * keeps FULL so SQLite also syncs the directory entry of a newly created WAL file; a database
 * that is not in WAL mode always keeps FULL.
 * `wroteRows(result)` says whether the transaction changed anything; when it did not, this still
 * waits for a sync in flight, so an answer based on rows it read (unchanged) is never sent before
 * those rows are on disk.
 */
export async function commitDurably<T>(db: Db, write: () => T, wroteRows: (result: T) => boolean): Promise<T> {
  if (!walSynced.has(db)) {
    const result = write();
    if (wroteRows(result) && !db.memory && db.pragma('journal_mode', { simple: true }) === 'wal') walSynced.add(db);
    return result;
  }
  db.pragma('synchronous = NORMAL');
  let result: T;
  try {
    result = write();
  } finally {
    db.pragma('synchronous = FULL');
  }
  if (wroteRows(result)) {
    const sync = syncWal(db);
    syncInFlight.set(db, sync);
    try {
      await sync;
    } finally {
      if (syncInFlight.get(db) === sync) syncInFlight.delete(db);
    }
  } else {
    await syncInFlight.get(db);
  }
  return result;
}

async function syncWal(db: Db): Promise<void> {
  const wal = await open(`${db.name}-wal`, 'r');
  try {
    await wal.datasync();
  } finally {
    await wal.close();
  }
}
