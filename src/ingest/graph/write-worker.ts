import { parentPort } from 'node:worker_threads';
import { INBOX_DB_OPTIONS, KeptConnections, openDatabase, type Db } from '../../platform/storage/index.js';
import { inboxRowsOf } from './inbox.js';
import { describeError } from './extract-row.js';
import { readPendingExtraction } from './extraction-pool.js';
import type { GraphWriteRequest, GraphWriteResponse } from './graph-writer.js';
import { writeBatch, writePendingBatch } from './process-raw-items.js';
import { fitWriterCache, openGraphWriter } from './statements.js';
import { WriteQueue } from './write-queue.js';
import { beginWriterTurn, endWriterTurn, loopWantsTurn, type WriteTurn } from './write-turn.js';
import { nameThread } from '../../platform/threads/index.js';
import { WalCheckpoints } from './wal-checkpoints.js';

const queues = new WeakMap<Db, WriteQueue>();
/** The graph files' WAL checkpoints, run beside the writes in a thread of their own. */
const checkpoints = new WalCheckpoints();
/**
 * Each graph file's connection, kept between batches: closed a second after its last request came
 * or its last transaction ended, unless writes still wait for it (a long transaction on another
 * file may hold them past that second). Opened again, it would start with a cold page cache.
 */
const connections = new KeptConnections(
  (file) => {
    const db = openGraphWriter(file);
    checkpoints.handOff(db);
    return db;
  },
  1000,
  (db) => (queues.get(db)?.waitingWrites ?? 0) > 0,
);
/** Each inbox file's connection, read-only: the writer reads the rows it moves with a batch. */
const inboxes = new KeptConnections((file) => openDatabase(file, { ...INBOX_DB_OPTIONS, readonly: true }), 1000);
/**
 * Each connection's write turn, the one its last request came with
 * (the event loop's connection to a file may be opened again).
 */
const turns = new WeakMap<Db, WriteTurn>();

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
        fitWriterCache(db);
        beginWriterTurn(turn);
        try {
          writeBatch(db, writes);
        } finally {
          endWriterTurn(turn);
          // A transaction can outlast the idle time: the next batch keeps the page cache.
          connections.touch(db.name);
        }
        checkpoints.afterCommit(db.name);
      },
      // A write of the event loop waiting for this file (a move from the inbox, a delete) ends a merged transaction after the write under way.
      () => loopWantsTurn(turns.get(db)!),
    );
    queues.set(db, queue);
  }
  return queue;
}

/**
 * The graph writer thread (graph-writer.ts): writes each batch as the daemon's own thread did
 * (writePendingBatch through a write queue), and answers what it did once committed.
 */
if (parentPort) nameThread('nodectl-writer');
parentPort?.on('message', (request: GraphWriteRequest) => {
  const answer = (response: GraphWriteResponse) => parentPort!.postMessage(response);
  try {
    const db = connections.get(request.file);
    turns.set(db, request.turn);
    // The extraction is read and the inbox rows too when the batch's turn comes: batches waiting
    // hold their extraction as text, not as objects, and no bodies.
    const { extracted } = request;
    const rows = () => (extracted instanceof Uint8Array ? readPendingExtraction(extracted) : extracted);
    const moves = () =>
      request.inboxFile === undefined ? [] : inboxRowsOf(inboxes.get(request.inboxFile), request.batch);
    queueOf(db)
      .write(request.batch.length, () =>
        writePendingBatch(db, request.site, request.batch, rows(), request.now, moves()),
      )
      .then(
        (result) => answer({ id: request.id, result }),
        (error: unknown) => answer(failed(request.id, error)),
      );
  } catch (error) {
    answer(failed(request.id, error));
  }
});

function failed(id: number, error: unknown): GraphWriteResponse {
  const code = (error as { code?: unknown } | null)?.code;
  return { id, error: describeError(error), ...(typeof code === 'string' ? { code } : {}) };
}
