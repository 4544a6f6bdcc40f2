import { parentPort, workerData } from 'node:worker_threads';
import { GRAPH_DB_OPTIONS, openDatabase } from '../../platform/storage/index.js';
import { nameThread } from '../../platform/threads/index.js';
import { GRAPH_QUERIES, GRAPH_STATE_SQL, LANGUAGES_SQL } from './reader.js';
import {
  SIGNAL,
  type ReaderAsk,
  type ReaderMessage,
  type ReaderRequest,
  type ReaderWorkerData,
} from './reader-thread.js';

/**
 * The reading thread of ThreadedGraphReader (reader-thread.ts): one read-only connection, one
 * read transaction for the thread's life, each query's rows sent as JSON text, chunkRows to a
 * message, ahead of the compile by at most chunksAhead messages or aheadBytes of rows, whichever
 * allows more.
 */
const { file, port, signal, chunkRows, chunksAhead, aheadBytes } = workerData as ReaderWorkerData;
const flags = new Int32Array(signal);
nameThread('nodectl-reader');
const db = openDatabase(file, { ...GRAPH_DB_OPTIONS, readonly: true });
db.exec('BEGIN');
// A read transaction begins at its first read: from here on the thread reads this state of the graph.
db.prepare('SELECT 1 FROM sqlite_schema LIMIT 1').get();
parentPort!.postMessage('ready');

/** The text length of each message posted and not yet seen taken, oldest first, and their sum. */
const aheadSizes: number[] = [];
let aheadStart = 0;
let rowsAhead = 0;

function post(message: ReaderMessage): void {
  port.postMessage(message);
  aheadSizes.push(message.rows?.length ?? 0);
  rowsAhead += message.rows?.length ?? 0;
  Atomics.add(flags, SIGNAL.posted, 1);
  Atomics.notify(flags, SIGNAL.posted);
}

/** Forgets the messages the compile has taken: `taken` of all posted so far. */
function settleTaken(taken: number): void {
  const posted = Atomics.load(flags, SIGNAL.posted);
  while (aheadStart < aheadSizes.length && posted - (aheadSizes.length - aheadStart) < taken)
    rowsAhead -= aheadSizes[aheadStart++]!;
  if (aheadStart > 1024) {
    aheadSizes.splice(0, aheadStart);
    aheadStart = 0;
  }
}

/** Queries answered so far: the number of the one being answered (ThreadedGraphReader numbers them alike). */
let answering = 0;

/** Waits until the compile has room for another message; false when it stopped this query. */
function room(): boolean {
  for (;;) {
    if (Atomics.load(flags, SIGNAL.cancel) === answering) return false;
    const taken = Atomics.load(flags, SIGNAL.taken);
    settleTaken(taken);
    if (Atomics.load(flags, SIGNAL.posted) - taken < chunksAhead || rowsAhead < aheadBytes) return true;
    Atomics.wait(flags, SIGNAL.taken, taken, 1000);
  }
}

function answer(request: ReaderRequest): void {
  answering++;
  if (request.query === 'languages') return post({ value: db.prepare(LANGUAGES_SQL).pluck().all() });
  if (request.query === 'graphState') return post({ value: db.prepare(GRAPH_STATE_SQL).pluck().get() ?? null });
  const sql = GRAPH_QUERIES[request.query].sql;
  if (request.query === 'entityById')
    return post({
      value:
        db
          .prepare(sql)
          .pluck()
          .get(...request.params) ?? null,
    });
  // A vector row is a few KiB of hex: fewer of them to a message keeps the messages ahead small.
  const perMessage = request.query === 'chunkVectors' ? Math.max(1, Math.floor(chunkRows / 50)) : chunkRows;
  let rows: string[] = [];
  for (const json of db
    .prepare(sql)
    .pluck()
    .iterate(...request.params) as IterableIterator<string>) {
    rows.push(json);
    if (rows.length < perMessage) continue;
    if (!room()) return post({ done: true });
    post({ rows: `[${rows.join(',')}]` });
    rows = [];
  }
  post({ rows: `[${rows.join(',')}]`, done: true });
}

/**
 * Each query's messages, in turn: the compile takes them in the same
 * order (flow control keeps the thread at most chunksAhead ahead).
 */
port.on('message', (ask: ReaderAsk) => {
  for (const request of 'plan' in ask ? ask.plan : [ask]) {
    try {
      answer(request);
    } catch (error) {
      post({ error: (error as Error).message });
    }
  }
});
