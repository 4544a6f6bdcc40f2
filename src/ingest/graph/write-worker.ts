import { parentPort } from 'node:worker_threads';
import { GRAPH_DB_OPTIONS, KeptConnections, openDatabase, type Db } from '../../platform/storage/index.js';
import { describeError } from './extract-row.js';
import { readPendingExtraction } from './extraction-pool.js';
import type { GraphWriteRequest, GraphWriteResponse } from './graph-writer.js';
import { splitPendingBatch, writeBatch, writePendingBatch } from './process-raw-items.js';
import { addResult, emptyResult } from './run-result.js';
import { WriteQueue } from './write-queue.js';
import { beginWriterTurn, endWriterTurn, loopWantsTurn, loopWrites, type WriteTurn } from './write-turn.js';
import { nameThread } from '../../platform/threads/index.js';

const queues = new WeakMap<Db, WriteQueue>();
/**
 * Each graph file's connection, kept between batches: closed a second after its last request came
 * or its last transaction ended, unless writes still wait for it (a long transaction on another
 * file may hold them past that second). Opened again, it would start with a cold page cache.
 */
const connections = new KeptConnections(
  (file) => openDatabase(file, GRAPH_DB_OPTIONS),
  1000,
  (db) => (queues.get(db)?.waitingWrites ?? 0) > 0,
);
/**
 * Each connection's write turn, the one its last request came with
 * (the event loop's connection to a file may be opened again).
 */
const turns = new WeakMap<Db, WriteTurn>();

/**
 * Items per write while pushes are arriving: the write queue still merges a batch's parts into one
 * transaction, but ends it after the part under way when a push waits for the turn, so a push
 * waits for one part rather than the whole batch (docs/performance.md, "Acknowledgements while
 * the graph builds").
 */
const PUSHING_WRITE_ITEMS = 100;
/** How long after the event loop's last write to a file pushes count as still arriving. */
const PUSHES_WINDOW_MS = 2000;
/** Per graph file: the event loop's write count this thread last saw, and when it saw it change. */
const loopWritesSeen = new Map<string, { writes: number; atMs: number }>();

/** Whether the event loop began a write to the file in the last PUSHES_WINDOW_MS (as far as this thread saw). */
function pushesArriving(file: string, turn: WriteTurn, nowMs: number): boolean {
  const writes = loopWrites(turn);
  const seen = loopWritesSeen.get(file);
  if (seen?.writes === writes) return nowMs - seen.atMs < PUSHES_WINDOW_MS;
  // Changed since last seen (or first seen having been written): a push came since.
  loopWritesSeen.set(file, { writes, atMs: nowMs });
  return seen !== undefined || writes > 0;
}

/**
 * The connection's write queue: batches that wait at once share a transaction, which starts in the
 * writer's turn and ends early when the event loop wants the turn.
 */
function queueOf(db: Db): WriteQueue {
  let queue = queues.get(db);
  if (queue === undefined) {
    queue = new WriteQueue(
      (writes) => {
        const turn = turns.get(db)!;
        beginWriterTurn(turn);
        try {
          writeBatch(db, writes);
        } finally {
          endWriterTurn(turn);
          // A transaction can outlast the idle time: the next batch keeps the page cache.
          connections.touch(db.name);
        }
      },
      // An ingest request waiting to write this file ends a merged transaction after the write under way.
      () => loopWantsTurn(turns.get(db)!),
    );
    queues.set(db, queue);
  }
  return queue;
}

/**
 * The graph writer thread (graph-writer.ts): writes each batch as the daemon's own thread did
 * (writePendingBatch through a write queue), in parts while pushes are arriving, and answers what
 * it did once committed.
 */
if (parentPort) nameThread('nodectl-writer');
parentPort?.on('message', (request: GraphWriteRequest) => {
  const answer = (response: GraphWriteResponse) => parentPort!.postMessage(response);
  try {
    const db = connections.get(request.file);
    turns.set(db, request.turn);
    const extracted =
      typeof request.extracted === 'string' ? readPendingExtraction(request.extracted) : request.extracted;
    const queue = queueOf(db);
    const parts = pushesArriving(request.file, request.turn, Date.now())
      ? splitPendingBatch(request.batch, extracted, PUSHING_WRITE_ITEMS)
      : [{ batch: request.batch, extracted }];
    // Answered once every part settled: with the first part's error if any failed (the others committed).
    void Promise.allSettled(
      parts.map((part) =>
        queue.write(part.batch.length, () =>
          writePendingBatch(db, request.site, part.batch, part.extracted, request.now),
        ),
      ),
    ).then((settled) => {
      const failure = settled.find((s) => s.status === 'rejected');
      if (failure) return answer(failed(request.id, failure.reason));
      const result = emptyResult();
      for (const s of settled) if (s.status === 'fulfilled') addResult(result, s.value);
      answer({ id: request.id, result });
    });
  } catch (error) {
    answer(failed(request.id, error));
  }
});

function failed(id: number, error: unknown): GraphWriteResponse {
  const code = (error as { code?: unknown } | null)?.code;
  return { id, error: describeError(error), ...(typeof code === 'string' ? { code } : {}) };
}
