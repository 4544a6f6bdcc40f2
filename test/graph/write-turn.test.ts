import { Worker } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { GRAPH_DB_OPTIONS } from '../../src/platform/storage/graph-db.js';
import { openDatabase } from '../../src/platform/storage/sqlite.js';
import { withWriteTurn, writeTurnOf, type WriteTurn } from '../../src/ingest/graph/write-turn.js';
import { workerModuleUrl } from '../../src/platform/threads/worker-url.js';

/**
 * A thread playing the graph writer's side of the turn (the build's write-turn.js): on each
 * message it begins its turn, says when (Date.now), holds the turn `holdMs`, and ends it.
 */
const WRITER_SIDE = `
const { parentPort, workerData } = require('node:worker_threads');
import(workerData.module).then(({ beginWriterTurn, endWriterTurn }) => {
  parentPort.on('message', ({ turn, holdMs }) => {
    beginWriterTurn(turn);
    const began = Date.now();
    parentPort.postMessage({ began });
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, holdMs);
    const ended = Date.now();
    endWriterTurn(turn);
    parentPort.postMessage({ ended });
  });
  parentPort.postMessage('ready');
});`;

const workers: Worker[] = [];
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.terminate()));
});

async function writerSide(): Promise<{
  take: (turn: WriteTurn, holdMs: number) => { began: Promise<number>; ended: Promise<number> };
}> {
  const module = workerModuleUrl(
    pathToFileURL(`${process.cwd()}/src/ingest/graph/graph-writer.ts`).href,
    'write-turn.js',
    'the write turn',
  ).href;
  const worker = new Worker(WRITER_SIDE, { eval: true, workerData: { module } });
  workers.push(worker);
  await new Promise((resolve) => worker.once('message', resolve));
  return {
    take(turn, holdMs) {
      const messages: Array<{ began?: number; ended?: number }> = [];
      const next = new Promise<void>((resolve) => {
        const on = (m: { began?: number; ended?: number }) => {
          messages.push(m);
          if (messages.length === 2) (worker.off('message', on), resolve());
        };
        worker.on('message', on);
      });
      worker.postMessage({ turn, holdMs });
      const began = new Promise<number>((resolve) => {
        const on = (m: { began?: number }) => {
          if (m.began !== undefined) (worker.off('message', on), resolve(m.began));
        };
        worker.on('message', on);
      });
      return { began, ended: next.then(() => messages.find((m) => m.ended !== undefined)!.ended!) };
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
    const taken = writer.take(writeTurnOf(db), 400);
    await taken.began;
    let ticks = 0;
    const ticking = setInterval(() => ticks++, 20);
    let wroteAt = 0;
    await withWriteTurn(db, () => (wroteAt = Date.now()));
    clearInterval(ticking);
    expect(wroteAt).toBeGreaterThanOrEqual(await taken.ended);
    // The loop went on while the write waited: timers fired.
    expect(ticks).toBeGreaterThanOrEqual(5);
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
