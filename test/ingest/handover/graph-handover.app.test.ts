import { existsSync, readdirSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { processRawItems } from '../../../src/ingest/graph/process-raw-items.js';
import { appendJournal, LeaseLostError, readJournal } from '../../../src/ingest/handover/journal.js';
import { restoreGraph } from '../../../src/ingest/handover/restore.js';
import {
  deleteWebsiteSnapshots,
  readSnapshotRecord,
  snapshotKey,
  takeGraphSnapshot,
  type SnapshotStore,
} from '../../../src/ingest/handover/snapshots.js';
import { createFsTarget } from '../../../src/output/publish/targets/fs.js';
import { createS3Target } from '../../../src/output/publish/targets/s3.js';
import { GRAPH_DB_OPTIONS } from '../../../src/platform/storage/graph-db.js';
import { graphDbPath } from '../../../src/platform/storage/data-dir.js';
import { openDatabase } from '../../../src/platform/storage/sqlite.js';
import { makeTempDir } from '../../helpers/paths.js';
import { startLocalS3, type LocalS3 } from '../../output/publish/s3-server.js';
import {
  cleanups,
  clock,
  CONTROL_STORES,
  daemon,
  item,
  runCleanups,
  scratchOf,
  site,
  TTL,
  WEB,
  type Daemon,
} from './support.js';

/**
 * A website's graph moving between daemons (src/ingest/handover): snapshots in a publish target
 * (fs, and S3 on a real S3-protocol server), restore and replay in another data directory, on
 * both control stores.
 */
let s3: LocalS3;
beforeAll(async () => {
  s3 = await startLocalS3('handover');
});
afterAll(async () => {
  await s3?.stop();
});
afterEach(runCleanups);

const SNAPSHOT_STORES: Array<{ name: string; open: () => Promise<SnapshotStore> }> = [
  {
    name: 'fs',
    open: async () => {
      const temp = makeTempDir('nodectl-handover-nodes-');
      cleanups.push(() => temp.cleanup());
      return createFsTarget({ root: temp.dir });
    },
  },
  {
    name: 's3',
    open: async () => {
      // A prefix of its own: every test's keys apart in the one server.
      const target = await createS3Target({
        bucket: s3.bucket,
        prefix: `t${Math.random().toString(36).slice(2)}`,
        endpoint: s3.endpoint,
        forcePathStyle: true,
        accessKeyId: 'S3RVER',
        secretAccessKey: 'S3RVER',
      });
      cleanups.push(() => target.close());
      return target;
    },
  },
];

const COMBOS = CONTROL_STORES.flatMap((control) =>
  SNAPSHOT_STORES.map((snapshots) => ({ name: `${control.name} + ${snapshots.name}`, control, snapshots })),
);

const insertStale = (d: Daemon) =>
  d.graphs
    .get(WEB)
    .prepare(
      `INSERT INTO raw_items (raw_content_id, item_type, item_id, checksum, url, state, received_at)
       VALUES ('raw_stale', 'page', 'stale', 'x', 'https://shop.example/stale', 'pending', '2020-01-01T00:00:00Z')`,
    )
    .run();

describe.each(COMBOS)('graph handover on $name', ({ control, snapshots }) => {
  const daemons = async (): Promise<[Daemon, Daemon]> => {
    const connect = await control.connect();
    const store = await snapshots.open();
    return [daemon('a', connect(), store), daemon('b', connect(), store)];
  };
  /** A's lease lapses and B acquires the website: B's token. */
  const handOver = async (b: Daemon) => {
    clock.ms += TTL + 1;
    return b.acquire();
  };

  it('a snapshot plus later journal entries restored in a second data directory gives the same raw rows', async () => {
    const [a, b] = await daemons();
    // B's local graph holds a row no tenure journaled: it must not survive the restore.
    insertStale(b);
    const tokenA = await a.acquire();
    a.accept(tokenA, [item('1'), item('2'), item('3')]);
    // content.ingest ran for item 1 before the snapshot; 2 and 3 stay pending in it.
    const first = a.graphs.get(WEB).prepare(`SELECT raw_content_id FROM raw_items WHERE item_id = '1'`).get() as {
      raw_content_id: string;
    };
    processRawItems(a.graphs.get(WEB), site, [first.raw_content_id], { now: new Date(clock.ms).toISOString() });
    const snapshot = await takeGraphSnapshot(a, WEB, tokenA);
    expect(snapshot).toMatchObject({ status: 'recorded', pruned: 1 });
    // After the snapshot: item 2 changes, item 4 is new, item 3 is deleted.
    a.accept(tokenA, [item('2', 2), item('4')]);
    a.delete(tokenA, ['3'], 'source_deleted');
    const tokenB = await handOver(b);
    expect(tokenB).toBe(tokenA + 1);
    const restored = await restoreGraph(b, WEB, tokenB);
    expect(b.rows()).toEqual(a.rows());
    expect(b.rows().map((r) => [r.item_id, r.state])).toEqual([
      ['1', 'processed'],
      ['2', 'pending'],
      ['3', 'tombstoned'],
      ['4', 'pending'],
    ]);
    const pendingOf = (d: Daemon, ids: string[]) =>
      (
        d.graphs
          .get(WEB)
          .prepare(`SELECT raw_content_id, item_id FROM raw_items WHERE state = 'pending' ORDER BY raw_content_id`)
          .all() as Array<{ raw_content_id: string; item_id: string }>
      )
        .filter((r) => ids.includes(r.item_id))
        .map((r) => r.raw_content_id);
    expect(restored).toEqual({
      snapshot: expect.objectContaining({ journalSeq: (snapshot as { journalSeq: number }).journalSeq, token: tokenA }),
      replayed: 2,
      rawContentIds: pendingOf(b, ['2', '4']),
      pendingRawContentIds: [],
      removed: [{ type: 'page', id: '3' }],
      reason: 'source_deleted',
    });
    expect(restored.rawContentIds).toHaveLength(2);
    // The scratch copies are gone.
    expect(readdirSync(scratchOf(b))).toEqual([]);
    expect(readdirSync(scratchOf(a))).toEqual([]);
  });

  it('a snapshot holds what the inbox held; a restore empties the inbox an earlier tenure left', async () => {
    const [a, b] = await daemons();
    const tokenA = await a.acquire();
    // B accepted item 9 in an earlier tenure; its journal entry was pruned long since.
    b.graphs
      .inbox(WEB)
      .prepare(
        `INSERT INTO inbox_items (raw_content_id, item_type, item_id, checksum, url, language, body, received_at)
         VALUES ('raw_00000000000000000000000009', 'page', '9', 'x', 'https://shop.example/p/9', 'en', '{}', '2020-01-01T00:00:00Z')`,
      )
      .run();
    expect(a.acceptIntoInbox(tokenA, [item('1'), item('2')]).map((o) => o.status)).toEqual(['accepted', 'accepted']);
    expect(a.rows()).toEqual([]);
    expect(await takeGraphSnapshot(a, WEB, tokenA)).toMatchObject({ status: 'recorded', pruned: 1 });
    // Moved into the graph before the copy: the journal entry it pruned is in the snapshot.
    expect(a.rows().map((r) => [r.item_id, r.state])).toEqual([
      ['1', 'pending'],
      ['2', 'pending'],
    ]);
    expect(a.graphs.inbox(WEB).prepare('SELECT count(*) FROM inbox_items').pluck().get()).toBe(0);
    const restored = await restoreGraph(b, WEB, await handOver(b));
    expect(restored).toMatchObject({ replayed: 0, rawContentIds: [] });
    expect(restored.pendingRawContentIds).toHaveLength(2);
    expect(b.rows()).toEqual(a.rows());
    expect(b.graphs.inbox(WEB).prepare('SELECT count(*) FROM inbox_items').pluck().get()).toBe(0);
    // B numbers what it accepts next past the versions A's graph holds (A's inbox numbered them 1 and 2).
    expect(b.graphs.get(WEB).prepare('SELECT max(accepted_seq) FROM raw_items').pluck().get()).toBe(2);
    expect(
      b.graphs.inbox(WEB).prepare(`SELECT seq FROM sqlite_sequence WHERE name = 'inbox_items'`).pluck().get(),
    ).toBe(2);
  });

  it('lists the rows a snapshot holds still pending, and a tombstone whose removal had not run', async () => {
    const [a, b] = await daemons();
    const tokenA = await a.acquire();
    a.accept(tokenA, [item('1'), item('2')]);
    const ids = (
      a.graphs.get(WEB).prepare(`SELECT raw_content_id FROM raw_items ORDER BY item_id`).all() as Array<{
        raw_content_id: string;
      }>
    ).map((r) => r.raw_content_id);
    processRawItems(a.graphs.get(WEB), site, [ids[0]!], { now: new Date(clock.ms).toISOString() });
    // Item 1 deleted (journaled) but its content.ingest removal not run when the snapshot is taken.
    a.delete(tokenA, ['1'], 'gdpr_erasure');
    expect(await takeGraphSnapshot(a, WEB, tokenA)).toMatchObject({ status: 'recorded', pruned: 2 });
    const restored = await restoreGraph(b, WEB, await handOver(b));
    expect(restored).toMatchObject({
      replayed: 0,
      rawContentIds: [],
      pendingRawContentIds: [ids[1]],
      removed: [{ type: 'page', id: '1' }],
      reason: 'gdpr_erasure',
    });
    expect(b.rows()).toEqual(a.rows());
  });

  it('with no snapshot, replays the whole journal onto an empty graph, discarding a stale local one', async () => {
    const [a, b] = await daemons();
    // B's local graph holds a row no tenure journaled (left by a former tenure whose journal was pruned).
    insertStale(b);
    // Another connection to B's graph file, open across the restore (a reader thread's, the writer thread's).
    const other = openDatabase(graphDbPath(b.layout, WEB), GRAPH_DB_OPTIONS);
    cleanups.push(() => other.close());
    expect(other.prepare('SELECT COUNT(*) AS n FROM raw_items').get()).toEqual({ n: 1 });
    const tokenA = await a.acquire();
    a.accept(tokenA, [item('1'), item('2')]);
    a.accept(tokenA, [item('1', 2)]);
    const tokenB = await handOver(b);
    const restored = await restoreGraph(b, WEB, tokenB);
    expect(restored.snapshot).toBeUndefined();
    expect(restored.replayed).toBe(2);
    expect(a.rows().map((r) => r.item_id)).toEqual(['1', '2']);
    expect(b.rows()).toEqual(a.rows());
    // Item 1 twice: its first version's row was replaced by the second.
    expect(restored.rawContentIds).toHaveLength(2);
    expect(restored.pendingRawContentIds).toEqual([]);
    // The connection opened before the restore reads the restored file.
    expect(other.prepare(`SELECT item_id FROM raw_items ORDER BY item_id`).all()).toEqual(
      b.rows().map((r) => ({ item_id: r.item_id })),
    );
  });

  it('restores over a stale local graph from a snapshot: rows only the stale graph had are gone', async () => {
    const [a, b] = await daemons();
    const tokenA = await a.acquire();
    a.accept(tokenA, [item('1')]);
    expect(await takeGraphSnapshot(a, WEB, tokenA)).toMatchObject({ status: 'recorded' });
    // B's local graph holds something no tenure journaled (left by a former tenure whose journal was pruned).
    insertStale(b);
    const restored = await restoreGraph(b, WEB, await handOver(b));
    expect(restored.replayed).toBe(0);
    expect(b.rows()).toEqual(a.rows());
    expect(restored.pendingRawContentIds).toHaveLength(1);
  });

  it('restores into a live graph of another page size (a graph made before 16 KiB pages)', async () => {
    const [a, b] = await daemons();
    const tokenA = await a.acquire();
    a.accept(tokenA, [item('1'), item('2')]);
    expect(await takeGraphSnapshot(a, WEB, tokenA)).toMatchObject({ status: 'recorded' });
    const old = openDatabase(graphDbPath(b.layout, WEB), { ...GRAPH_DB_OPTIONS, pageSize: 4096 });
    old.close();
    expect(b.graphs.get(WEB).pragma('page_size', { simple: true })).toBe(4096);
    await restoreGraph(b, WEB, await handOver(b));
    expect(b.rows()).toEqual(a.rows());
  });

  it('a replay of entries the snapshot holds changes nothing', async () => {
    const [a, b] = await daemons();
    const tokenA = await a.acquire();
    a.accept(tokenA, [item('1'), item('2')]);
    const recorded = await takeGraphSnapshot(a, WEB, tokenA);
    expect(recorded.status).toBe('recorded');
    // The same items journaled again after the snapshot (e.g. a snapshot recorded, its prune lost).
    appendJournal(a.controlDb, {
      websiteId: WEB,
      token: tokenA,
      nowMs: clock.ms,
      entry: {
        kind: 'items',
        connectorId: 'conn_1',
        defaultLanguage: 'en',
        receivedAt: new Date(clock.ms).toISOString(),
        items: [item('1'), item('2')].map((i) => ({ item: i, raw: JSON.stringify(i) })),
      },
    });
    const before = a.rows();
    const restored = await restoreGraph(b, WEB, await handOver(b));
    expect(restored.replayed).toBe(1);
    expect(restored.rawContentIds).toEqual([]);
    expect(restored.pendingRawContentIds).toHaveLength(2);
    expect(b.rows()).toEqual(before);
  });

  it('refuses to record a snapshot of a stale tenure, and removes its upload; the journal stays', async () => {
    const [a, b] = await daemons();
    const tokenA = await a.acquire();
    a.accept(tokenA, [item('1')]);
    const tokenB = await handOver(b);
    expect(await takeGraphSnapshot(a, WEB, tokenA)).toEqual({ status: 'refused', reason: 'lease_lost' });
    expect(readSnapshotRecord(a.controlDb, WEB)).toBeUndefined();
    expect(await a.snapshots.list(`_graphs/${WEB}/`)).toEqual([]);
    expect([...readJournal(a.controlDb, WEB, 0)]).toHaveLength(1);
    await expect(restoreGraph(a, WEB, tokenA)).rejects.toThrow(LeaseLostError);
    // The new owner's snapshot is recorded.
    await restoreGraph(b, WEB, tokenB);
    expect(await takeGraphSnapshot(b, WEB, tokenB)).toMatchObject({ status: 'recorded', pruned: 1 });
  });

  it('prunes the journal a snapshot holds and deletes the previous snapshot; never records one behind', async () => {
    const [a] = await daemons();
    const token = await a.acquire();
    a.accept(token, [item('1')]);
    a.accept(token, [item('2')]);
    const first = await takeGraphSnapshot(a, WEB, token);
    expect(first).toMatchObject({ status: 'recorded', pruned: 2 });
    const firstKey = (first as { objectKey: string }).objectKey;
    expect(firstKey).toBe(snapshotKey(WEB, (first as { journalSeq: number }).journalSeq, token));
    expect(firstKey).toMatch(new RegExp(`^_graphs/${WEB}/\\d{16}-${token}\\.sqlite$`));
    a.accept(token, [item('3')]);
    const second = await takeGraphSnapshot(a, WEB, token);
    expect(second).toMatchObject({ status: 'recorded', pruned: 1 });
    const secondKey = (second as { objectKey: string }).objectKey;
    expect(await a.snapshots.list(`_graphs/${WEB}/`)).toEqual([secondKey]);
    expect([...readJournal(a.controlDb, WEB, 0)]).toEqual([]);
    a.accept(token, [item('4')]);
    expect([...readJournal(a.controlDb, WEB, 0)]).toHaveLength(1);
    // A snapshot of a later position is recorded (another run got there first): this one is behind.
    a.controlDb.prepare('UPDATE graph_snapshots SET journal_seq = journal_seq + 1000 WHERE website_id = ?').run(WEB);
    expect(await takeGraphSnapshot(a, WEB, token)).toEqual({ status: 'refused', reason: 'behind' });
    expect(await a.snapshots.list(`_graphs/${WEB}/`)).toEqual([secondKey]);
    expect([...readJournal(a.controlDb, WEB, 0)]).toHaveLength(1);
    // The website delete removes its snapshots.
    expect(await deleteWebsiteSnapshots(a, WEB)).toBe(1);
    expect(await a.snapshots.list(`_graphs/${WEB}/`)).toEqual([]);
    expect(readSnapshotRecord(a.controlDb, WEB)).toBeUndefined();
  });

  it('a restore fails, leaving the graph alone, when the recorded snapshot is missing from the store', async () => {
    const [a, b] = await daemons();
    const tokenA = await a.acquire();
    a.accept(tokenA, [item('1')]);
    const taken = await takeGraphSnapshot(a, WEB, tokenA);
    await a.snapshots.delete((taken as { objectKey: string }).objectKey);
    const tokenB = await handOver(b);
    const before = b.rows();
    await expect(restoreGraph(b, WEB, tokenB)).rejects.toThrow(/missing from the snapshot store/);
    expect(b.rows()).toEqual(before);
    expect(existsSync(scratchOf(b)) ? readdirSync(scratchOf(b)) : []).toEqual([]);
  });
});
