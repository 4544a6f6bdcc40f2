import { statSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkpointWorkerUrl, WalCheckpoints } from '../../../src/ingest/graph/wal-checkpoints.js';
import { tempGraph, type TempGraph } from './helpers.js';

const MiB = 1024 * 1024;
const BOUND = 1 * MiB;
const open: Array<{ graph: TempGraph; checkpoints: WalCheckpoints }> = [];
afterEach(async () => {
  for (const { graph, checkpoints } of open.splice(0)) {
    await checkpoints.close();
    graph.cleanup();
  }
});

/**
 * A graph file whose writer connection hands its checkpoints to a thread (bound 1 MiB, the WAL cut
 * back to a quarter of it, as 256 and 64 MiB are in production), and a table of 16 KiB rows.
 */
function writer(url: URL = checkpointWorkerUrl()) {
  const graph = tempGraph();
  const checkpoints = new WalCheckpoints(url, BOUND, BOUND / 4);
  open.push({ graph, checkpoints });
  graph.db.exec('CREATE TABLE blobs (n INTEGER PRIMARY KEY, b BLOB)');
  graph.db.pragma('wal_checkpoint(TRUNCATE)'); // the migrations' WAL: each test starts with none
  checkpoints.handOff(graph.db);
  let next = 0;
  const insert = graph.db.prepare('INSERT INTO blobs (n, b) VALUES (?, randomblob(16000))');
  /** One transaction of `rows` rows, then what the writer thread does after a commit. */
  const commit = (rows: number) => {
    graph.db.transaction(() => {
      for (let i = 0; i < rows; i++) insert.run(next++);
    })();
    checkpoints.afterCommit(graph.file);
  };
  const bytes = (suffix = '') => statSync(graph.file + suffix).size;
  return { graph, checkpoints, commit, bytes, rows: () => next };
}

/**
 * Commits transactions of about 0.65 MiB while `more(t)`, `pauseMs` apart. Returns each commit's
 * WAL file size, and whether a checkpoint of the thread was under way when the commit began.
 */
async function writeWhile(w: ReturnType<typeof writer>, more: (t: number) => boolean, pauseMs: number) {
  const commits: Array<{ wal: number; threadBusy: boolean }> = [];
  for (let t = 0; more(t); t++) {
    const { asked, answered, failed } = w.checkpoints.stats;
    w.commit(40);
    commits.push({ wal: w.bytes('-wal'), threadBusy: asked > answered + failed });
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
  return { commits, largest: Math.max(...commits.map((c) => c.wal)) };
}

describe('the graph writer thread hands its WAL checkpoints to a thread of their own (wal-checkpoints.ts)', () => {
  it('sets the writer connection to checkpoint itself only past four times the bound, and to cut its WAL back to the kept size', () => {
    const { graph } = writer();
    const pageSize = graph.db.pragma('page_size', { simple: true }) as number;
    expect(graph.db.pragma('wal_autocheckpoint', { simple: true })).toBe((4 * BOUND) / pageSize);
    expect(graph.db.pragma('journal_size_limit', { simple: true })).toBe(BOUND / 4);
  });

  it('asks nothing below the bound, then one checkpoint at a time, which copies the WAL into the file', async () => {
    const { checkpoints, commit, bytes } = writer();
    commit(20); // about 0.3 MiB of WAL
    expect(checkpoints.stats.asked).toBe(0);
    const fileBefore = bytes();
    commit(60); // past 1 MiB of WAL, below the writer's own 4 MiB
    commit(1); // while the first is under way: not asked again
    expect(checkpoints.stats.asked).toBe(1);
    expect(bytes()).toBe(fileBefore); // the writer connection did not checkpoint
    await vi.waitFor(() => expect(checkpoints.stats.answered).toBe(1), { timeout: 10_000 });
    expect(bytes()).toBeGreaterThan(fileBefore + 60 * 16_000);
    expect(checkpoints.stats.failed).toBe(0);
  });

  it('asks nothing past four times the bound: the writer checkpoints itself, and its next write cuts the WAL back', () => {
    const { checkpoints, commit, bytes } = writer();
    commit(330); // about 5.2 MiB in one transaction: SQLite's own checkpoint ran inside the commit
    expect(bytes('-wal')).toBeGreaterThan(4 * BOUND);
    expect(checkpoints.stats.asked).toBe(0);
    commit(1); // finds the WAL all copied: starts it over, and cuts the file to the kept size
    expect(bytes('-wal')).toBeLessThanOrEqual(BOUND / 4);
    expect(checkpoints.stats.asked).toBe(0);
  });

  it('keeps the WAL bounded while the writer writes without a pause, and loses no row', async () => {
    const w = writer();
    const { graph, checkpoints, rows } = w;
    // Until the thread has answered a few times (it starts in some 50 ms).
    const { commits, largest } = await writeWhile(w, (t) => t < 1000 && (t < 60 || checkpoints.stats.answered < 3), 1);
    expect(checkpoints.stats.answered).toBeGreaterThanOrEqual(3);
    expect(checkpoints.stats.failed).toBe(0);
    // Past four times the bound (and a transaction) the WAL grows only while a checkpoint of the
    // thread holds the lock the writer's own needs; once it ends nothing more is asked, so the
    // writer's checkpoint runs at its next commit and the write after starts the WAL over.
    const limit = 4 * BOUND + MiB;
    for (let m = 1; m < commits.length; m++) {
      const grew = commits[m]!.wal > commits[m - 1]!.wal && commits[m - 1]!.wal > limit;
      if (grew) expect(commits[m - 1]!.threadBusy, `commit ${m}`).toBe(true);
    }
    const written = commits.length * 40 * 16_000;
    expect(largest).toBeLessThan(written / 3);
    expect(graph.db.prepare('SELECT count(*) FROM blobs').pluck().get()).toBe(rows());
  });

  it('goes on writing, its WAL bounded by the fallback, when the checkpoint thread cannot start', async () => {
    const w = writer(new URL('./no-such-worker.js', checkpointWorkerUrl()));
    const { graph, checkpoints, rows } = w;
    const { largest } = await writeWhile(w, (t) => t < 30, 5);
    expect(checkpoints.stats.asked).toBeGreaterThan(0);
    expect(checkpoints.stats.answered).toBe(0);
    expect(largest).toBeLessThan(4 * BOUND + 2 * MiB);
    expect(graph.db.prepare('SELECT count(*) FROM blobs').pluck().get()).toBe(rows());
  });
});
