import { parentPort } from 'node:worker_threads';
import { GRAPH_DB_OPTIONS } from '../../platform/storage/graph-db.js';
import { KeptConnections } from '../../platform/storage/kept-connections.js';
import { openDatabase, type Db } from '../../platform/storage/sqlite.js';
import { describeError } from './extract-row.js';
import { readPendingExtraction } from './extraction-pool.js';
import type { GraphWriteRequest, GraphWriteResponse } from './graph-writer.js';
import { writeBatch, writePendingBatch } from './process-raw-items.js';
import { WriteQueue } from './write-queue.js';
import { beginWriterTurn, endWriterTurn, newWriteTurn, type WriteTurn } from './write-turn.js';
import { nameThread } from '../../platform/threads/thread-name.js';
import { WriterWarmUp, type BatchWrite } from './writer-warm-up.js';
import type { ProcessRawItemsResult } from './run-result.js';

const queues = new WeakMap<Db, WriteQueue>();
/**
 * Each graph file's connection, kept between batches: closed after a second unused, unless
 * writes still wait for it (a long transaction on another file may hold them past that second).
 */
const connections = new KeptConnections(
  (file) => openDatabase(file, GRAPH_DB_OPTIONS),
  1000,
  (db) => (queues.get(db)?.waitingWrites ?? 0) > 0,
);
/** Each connection's write turn, the one its last request came with (the event loop's connection to a file may be opened again). */
const turns = new WeakMap<Db, WriteTurn>();

/** The connection's write queue: batches that wait at once share a transaction, which starts in the writer's turn. */
function queueOf(db: Db): WriteQueue {
  let queue = queues.get(db);
  if (queue === undefined) {
    queue = new WriteQueue((writes) => {
      const turn = turns.get(db)!;
      beginWriterTurn(turn);
      try {
        writeBatch(db, writes);
      } finally {
        endWriterTurn(turn);
      }
    });
    queues.set(db, queue);
  }
  return queue;
}

/** A batch's write, in the next transaction of the connection's write queue; resolves with what it did once committed. */
function queueBatch(db: Db, write: BatchWrite): Promise<ProcessRawItemsResult> {
  return queueOf(db).write(write.batch.length, () =>
    writePendingBatch(db, write.site, write.batch, write.extracted, write.now),
  );
}

/** Warm-up batches go through the write queue of their own private graph, in a turn nobody else takes. */
const warmUp = new WriterWarmUp((db, write) => {
  if (!turns.has(db)) turns.set(db, newWriteTurn());
  return queueBatch(db, write);
});

/**
 * The graph writer thread (graph-writer.ts): writes each batch as the daemon's own thread did
 * (writePendingBatch through a write queue), and answers what it did once committed; a warm-up
 * answer of the extraction workers is written the same way into a private graph (writer-warm-up.ts).
 */
if (parentPort) nameThread('nodectl-writer');
parentPort?.on('message', (request: GraphWriteRequest) => {
  const answer = (response: GraphWriteResponse) => parentPort!.postMessage(response);
  if ('warmUp' in request) {
    const { warmUp: text, site } = request;
    warmUp
      .write(() => readPendingExtraction(text), site)
      .then(
        (warmedUp) => answer({ id: request.id, warmedUp }),
        (error: unknown) => answer({ id: request.id, error: describeError(error) }),
      );
    return;
  }
  try {
    const db = connections.get(request.file);
    turns.set(db, request.turn);
    const extracted =
      typeof request.extracted === 'string' ? readPendingExtraction(request.extracted) : request.extracted;
    queueBatch(db, { ...request, extracted }).then(
      (result) => answer({ id: request.id, result }),
      (error: unknown) => answer({ id: request.id, error: describeError(error) }),
    );
  } catch (error) {
    answer({ id: request.id, error: describeError(error) });
  }
});
