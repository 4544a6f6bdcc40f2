import Database from 'better-sqlite3';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { commitDurably, commitWithoutSync, syncCommits } from '../../../src/platform/storage/durable-commit.js';
import { createIdleCheckpointer } from '../../../src/ingest/endpoints/wal-checkpoint.js';
import { GRAPH_WAL_AUTOCHECKPOINT_BYTES, GRAPH_WAL_KEPT_BYTES } from '../../../src/platform/storage/graph-db.js';
import { openDatabase, type Db } from '../../../src/platform/storage/sqlite.js';
import { makeTempDir } from '../../helpers/paths.js';

const FULL = 2;
const NORMAL = 1;
let temp: { dir: string; cleanup: () => void };
let db: Db;

beforeEach(() => {
  temp = makeTempDir('nodectl-wal-');
  db = openDatabase(join(temp.dir, 'graph.sqlite'), {
    pageSize: 16_384,
    migrations: [{ version: 1, name: 't', up: (d) => d.exec('CREATE TABLE t (v TEXT)') }],
  });
});
afterEach(() => {
  db.close();
  temp.cleanup();
});

const insert = (v: string) => () => db.transaction(() => db.prepare('INSERT INTO t VALUES (?)').run(v).changes)();
const rowsSeenByAnotherConnection = () => {
  const other = new Database(db.name, { readonly: true });
  try {
    return (other.prepare('SELECT v FROM t ORDER BY rowid').all() as Array<{ v: string }>).map((r) => r.v);
  } finally {
    other.close();
  }
};

describe('commitDurably', () => {
  it('commits, leaves the connection at synchronous=FULL, and the rows are visible to other connections', async () => {
    expect(await commitDurably(db, insert('first'), (n) => n > 0)).toBe(1);
    expect(await commitDurably(db, insert('second'), (n) => n > 0)).toBe(1);
    expect(db.pragma('synchronous', { simple: true })).toBe(FULL);
    expect(rowsSeenByAnotherConnection()).toEqual(['first', 'second']);
  });

  it('restores synchronous=FULL when the transaction throws', async () => {
    await commitDurably(db, insert('first'), (n) => n > 0);
    const failing = () =>
      db.transaction(() => {
        throw new Error('boom');
      })();
    await expect(commitDurably(db, failing, () => true)).rejects.toThrow('boom');
    expect(db.pragma('synchronous', { simple: true })).toBe(FULL);
  });

  it('keeps synchronous=FULL throughout for a database that is not in WAL mode', async () => {
    const memory = openDatabase(':memory:', {
      migrations: [{ version: 1, name: 't', up: (d) => d.exec('CREATE TABLE t (v TEXT)') }],
    });
    try {
      const levels: unknown[] = [];
      const write = () => (
        levels.push(memory.pragma('synchronous', { simple: true })),
        memory.prepare('INSERT INTO t VALUES (1)').run().changes
      );
      await commitDurably(memory, write, () => true);
      await commitDurably(memory, write, () => true);
      expect(levels).toEqual([FULL, FULL]);
    } finally {
      memory.close();
    }
  });
});

describe('idle WAL checkpointer', () => {
  // Its timer and its idea of "quiet for" on a fake clock: time passes when a test says so.
  beforeEach(() => void vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] }));
  afterEach(() => void vi.useRealTimers());

  it('raises the autocheckpoint limit and folds the WAL back once ingestion is quiet', () => {
    const checkpointer = createIdleCheckpointer({ delayMs: 30 });
    try {
      checkpointer.willWrite(db);
      // 256 MiB of 16 KiB pages
      expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(GRAPH_WAL_AUTOCHECKPOINT_BYTES / 16_384);
      // A WAL file grown to the bound is cut back once a checkpoint has folded it in.
      expect(db.pragma('journal_size_limit', { simple: true })).toBe(GRAPH_WAL_KEPT_BYTES);
      insert('x'.repeat(100_000))();
      const before = db.pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number; checkpointed: number }>;
      expect(before[0]!.log).toBeGreaterThan(0);
      checkpointer.willWrite(db);
      insert('y')();
      vi.advanceTimersByTime(120);
      expect(checkpointer.checkpointNow()).toBe(0); // the timer already checkpointed it
      const after = db.pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number; checkpointed: number }>;
      expect(after[0]!.checkpointed).toBe(after[0]!.log);
    } finally {
      checkpointer.stop();
    }
  });

  it('cuts a WAL file grown past GRAPH_WAL_KEPT_BYTES back to it once a checkpoint has folded it in', () => {
    const checkpointer = createIdleCheckpointer({ delayMs: 60_000 });
    try {
      checkpointer.willWrite(db);
      const row = 'w'.repeat(1024 * 1024);
      db.transaction(() => {
        for (let i = 0; i < GRAPH_WAL_KEPT_BYTES / row.length + 8; i++) db.prepare('INSERT INTO t VALUES (?)').run(row);
      })();
      expect(statSync(`${db.name}-wal`).size).toBeGreaterThan(GRAPH_WAL_KEPT_BYTES);
      expect(checkpointer.checkpointNow()).toBe(1);
      insert('after')(); // the next writer restarts the folded WAL, cut to the limit
      expect(statSync(`${db.name}-wal`).size).toBeLessThanOrEqual(GRAPH_WAL_KEPT_BYTES);
      expect(rowsSeenByAnotherConnection().at(-1)).toBe('after');
    } finally {
      checkpointer.stop();
    }
  });

  it('waits while requests keep arriving, and skips a closed connection', () => {
    const checkpointer = createIdleCheckpointer({ delayMs: 60 });
    try {
      checkpointer.willWrite(db);
      insert('z')();
      const busyUntil = Date.now() + 150;
      while (Date.now() < busyUntil) {
        checkpointer.active();
        vi.advanceTimersByTime(20);
      }
      expect(checkpointer.checkpointNow()).toBe(1);
      checkpointer.willWrite(db);
      db.close();
      expect(checkpointer.checkpointNow()).toBe(0);
    } finally {
      checkpointer.stop();
      db = openDatabase(join(temp.dir, 'graph.sqlite'), {
        migrations: [{ version: 1, name: 't', up: () => undefined }],
      });
    }
  });
});

describe('commitDurably ordering', () => {
  it('a read-only transaction answers only after the sync of an earlier commit finished', async () => {
    await commitDurably(db, insert('first'), (n) => n > 0);
    const order: string[] = [];
    const writing = commitDurably(db, insert('second'), (n) => n > 0).then(() => order.push('write synced'));
    const reading = commitDurably(
      db,
      () => db.prepare('SELECT count(*) AS n FROM t').get() as { n: number },
      () => false,
    ).then((row) => order.push(`read ${row.n}`));
    await Promise.all([writing, reading]);
    expect(order).toEqual(['write synced', 'read 2']);
  });
});

describe('commitWithoutSync and syncCommits (the grouped WAL sync of the ingest path)', () => {
  const level = () => db.pragma('synchronous', { simple: true });

  it('the first write on a connection keeps FULL, the next ones run at NORMAL, and the connection is left at its own level', () => {
    const seen: unknown[] = [];
    const write = (v: string) => () => (seen.push(level()), insert(v)());
    commitWithoutSync(db, write('first'));
    commitWithoutSync(db, write('second'));
    expect(seen).toEqual([FULL, NORMAL]);
    expect(level()).toBe(FULL);
    expect(rowsSeenByAnotherConnection()).toEqual(['first', 'second']);
  });

  it('inside a transaction already open it keeps the level (SQLite refuses to change it there) instead of throwing', () => {
    commitWithoutSync(db, insert('first'));
    const seen = db.transaction(() => commitWithoutSync(db, () => (insert('inner')(), level())))();
    expect(seen).toBe(FULL);
    expect(rowsSeenByAnotherConnection()).toEqual(['first', 'inner']);
  });

  it('callers share syncs: one arriving while a sync runs waits for the next, which every later caller shares; nothing to sync resolves at once', async () => {
    commitWithoutSync(db, insert('first')); // FULL: nothing left to sync
    let settled = false;
    void syncCommits(db).then(() => void (settled = true));
    await Promise.resolve();
    expect(settled).toBe(true);

    commitWithoutSync(db, insert('second'));
    const first = syncCommits(db);
    expect(syncCommits(db)).toBe(first); // no commit since: the running sync covers it
    commitWithoutSync(db, insert('third'));
    const next = syncCommits(db);
    expect(next).not.toBe(first); // the running sync started before 'third'
    commitWithoutSync(db, insert('fourth'));
    expect(syncCommits(db)).toBe(next); // it has not started yet: it covers 'fourth' too
    const order: string[] = [];
    await Promise.all([first.then(() => order.push('first')), next.then(() => order.push('next'))]);
    expect(order).toEqual(['first', 'next']);
    expect(rowsSeenByAnotherConnection()).toEqual(['first', 'second', 'third', 'fourth']);
  });
});
