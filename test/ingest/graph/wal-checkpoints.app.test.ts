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

/** A graph file whose writer connection hands its checkpoints to a thread (bound 1 MiB), and a table of 16 KiB rows. */
function writer(url: URL = checkpointWorkerUrl()) {
  const graph = tempGraph();
  const checkpoints = new WalCheckpoints(url, BOUND);
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

/** Commits transactions of about 0.65 MiB while `more(t)`, `pauseMs` apart; returns the largest WAL file seen. */
async function writeWhile(w: ReturnType<typeof writer>, more: (t: number) => boolean, pauseMs: number) {
  let largest = 0;
  for (let t = 0; more(t); t++) {
    w.commit(40);
    largest = Math.max(largest, w.bytes('-wal'));
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
  return largest;
}

describe('the graph writer thread hands its WAL checkpoints to a thread of their own (wal-checkpoints.ts)', () => {
  it('sets the writer connection to checkpoint itself only past four times the bound, and to cut its WAL back to 64 MiB', () => {
    const { graph } = writer();
    const pageSize = graph.db.pragma('page_size', { simple: true }) as number;
    expect(graph.db.pragma('wal_autocheckpoint', { simple: true })).toBe((4 * BOUND) / pageSize);
    expect(graph.db.pragma('journal_size_limit', { simple: true })).toBe(64 * MiB);
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

  it('keeps the WAL bounded while the writer writes without a pause, and loses no row', async () => {
    const w = writer();
    const { graph, checkpoints, rows } = w;
    // Until the thread has answered a few times (it starts in some 50 ms).
    const largest = await writeWhile(w, (t) => t < 1000 && (t < 60 || checkpoints.stats.answered < 3), 1);
    expect(checkpoints.stats.answered).toBeGreaterThanOrEqual(3);
    expect(checkpoints.stats.failed).toBe(0);
    // The writer's own checkpoint past 4 MiB starts the WAL over at a later write: at most one transaction past it.
    expect(largest).toBeLessThan(4 * BOUND + 2 * MiB);
    expect(graph.db.prepare('SELECT count(*) FROM blobs').pluck().get()).toBe(rows());
  });

  it('goes on writing, its WAL bounded by the fallback, when the checkpoint thread cannot start', async () => {
    const w = writer(new URL('./no-such-worker.js', checkpointWorkerUrl()));
    const { graph, checkpoints, rows } = w;
    const largest = await writeWhile(w, (t) => t < 30, 5);
    expect(checkpoints.stats.asked).toBeGreaterThan(0);
    expect(checkpoints.stats.answered).toBe(0);
    expect(largest).toBeLessThan(4 * BOUND + 2 * MiB);
    expect(graph.db.prepare('SELECT count(*) FROM blobs').pluck().get()).toBe(rows());
  });
});
