import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { GRAPH_DB_OPTIONS } from '../../../src/platform/storage/graph-db.js';
import { openDatabase } from '../../../src/platform/storage/sqlite.js';
import { withWriteTurn, writeTurnOf, type WriteTurn } from '../../../src/ingest/graph/write-turn.js';
import { workerModuleUrl } from '../../../src/platform/threads/worker-url.js';

/**
 * A thread playing the graph writer's side of the turn (the build's write-turn.js): on each
 * message it begins its turn, says when (Date.now), holds the turn `holdMs`, or, given `release`
 * (an Int32Array on shared memory), until another thread sets release[0] (at most 10 s), and ends it.
 */
const WRITER_SIDE = `
const { parentPort, workerData } = require('node:worker_threads');
import(workerData.module).then(({ beginWriterTurn, endWriterTurn }) => {
  parentPort.on('message', ({ turn, holdMs, release }) => {
    beginWriterTurn(turn);
    const began = Date.now();
    parentPort.postMessage({ began });
    if (release) Atomics.wait(release, 0, 0, 10000);
    else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, holdMs);
    const released = release ? Atomics.load(release, 0) === 1 : undefined;
    const ended = Date.now();
    endWriterTurn(turn);
    parentPort.postMessage({ ended, released });
  });
  parentPort.postMessage('ready');
});`;

const workers: Worker[] = [];
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.terminate()));
});

async function writerSide(): Promise<{
  take: (
    turn: WriteTurn,
    hold: number | Int32Array,
  ) => { began: Promise<number>; ended: Promise<number>; released: Promise<boolean | undefined> };
}> {
  const module = workerModuleUrl(
    new URL('../../../src/ingest/graph/graph-writer.ts', import.meta.url).href,
    'write-turn.js',
    'the write turn',
  ).href;
  const worker = new Worker(WRITER_SIDE, { eval: true, workerData: { module } });
  workers.push(worker);
  await new Promise((resolve) => worker.once('message', resolve));
  return {
    take(turn, hold) {
      const messages: Array<{ began?: number; ended?: number; released?: boolean }> = [];
      const next = new Promise<void>((resolve) => {
        const on = (m: { began?: number; ended?: number; released?: boolean }) => {
          messages.push(m);
          if (messages.length === 2) (worker.off('message', on), resolve());
        };
        worker.on('message', on);
      });
      worker.postMessage(typeof hold === 'number' ? { turn, holdMs: hold } : { turn, release: hold });
      const began = new Promise<number>((resolve) => {
        const on = (m: { began?: number }) => {
          if (m.began !== undefined) (worker.off('message', on), resolve(m.began));
        };
        worker.on('message', on);
      });
      const last = next.then(() => messages.find((m) => m.ended !== undefined)!);
      return { began, ended: last.then((m) => m.ended!), released: last.then((m) => m.released) };
    },
  };
}

describe('the write turn between the event loop and the graph writer thread', () => {
  it('runs a write at once on a file no writer thread was given', async () => {
    const db = openDatabase(':memory:', GRAPH_DB_OPTIONS);
    expect(await withWriteTurn(db, () => 'written')).toBe('written');
    db.close();
  });

  it("holds an event loop write until the writer's transaction ends, without blocking the loop meanwhile", async () => {
    const db = openDatabase(':memory:', GRAPH_DB_OPTIONS);
    const writer = await writerSide();
    // The writer holds its transaction until this thread's event loop lets it go.
    const release = new Int32Array(new SharedArrayBuffer(4));
    const taken = writer.take(writeTurnOf(db), release);
    await taken.began;
    let wroteAt = 0;
    const writing = withWriteTurn(db, () => (wroteAt = Date.now()));
    // The loop goes on while the write waits: this timer fires, and it is what ends the writer's transaction.
    setTimeout(() => (Atomics.store(release, 0, 1), Atomics.notify(release, 0)), 0);
    await writing;
    expect(await taken.released, 'the writer was let go by a timer of the waiting loop').toBe(true);
    expect(wroteAt).toBeGreaterThanOrEqual(await taken.ended);
    db.close();
  });

  it('keeps the writer thread from starting a transaction while an event loop write runs', async () => {
    const db = openDatabase(':memory:', GRAPH_DB_OPTIONS);
    const writer = await writerSide();
    const turn = writeTurnOf(db);
    let began: Promise<number> | undefined;
    const endedAt = await withWriteTurn(db, () => {
      // The writer asks for its turn while this write holds it (blocking this thread 300 ms).
      began = writer.take(turn, 0).began;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
      return Date.now();
    });
    expect(await began!).toBeGreaterThanOrEqual(endedAt);
    db.close();
  });
});
