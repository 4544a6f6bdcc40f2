import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { rowsSinceParams, GRAPH_QUERIES, toGraphState, uniqueQa, type GraphQueryName } from './reader.js';
import type {
  ChunkRow,
  RowsSince,
  ChunkVectorRow,
  EntityRow,
  FactRow,
  GraphReader,
  GraphState,
  PlannedRead,
  QaRow,
  RelationshipRow,
  SourceRow,
  UnchangedChunkRow,
  UnchangedEntityRow,
  GoneFact,
} from './types.js';
import { workerModuleUrl } from '../../platform/threads/index.js';

/**
 * What the reading thread is asked: a query of GRAPH_QUERIES (or the
 * languages) and its parameters, or a plan of them to run in turn.
 */
export interface ReaderRequest {
  query: GraphQueryName | 'languages' | 'graphState';
  params: string[];
}
export type ReaderAsk = ReaderRequest | { plan: ReaderRequest[] };
/**
 * What it answers, one message at a time: rows (a JSON array of the rows' arrays), `done` with a
 * query's last rows, `value` for a query of one answer, or `error`, which ends the query.
 */
export interface ReaderMessage {
  rows?: string;
  done?: boolean;
  value?: unknown;
  error?: string;
}
export interface ReaderWorkerData {
  file: string;
  port: MessagePort;
  signal: SharedArrayBuffer;
  chunkRows: number;
  chunksAhead: number;
  aheadBytes: number;
}

/**
 * Slots of the shared Int32Array: messages posted and taken so far, and the number of the query
 * to stop (queries are numbered from 1 in the order both threads take them; 0: none).
 */
export const SIGNAL = { posted: 0, taken: 1, cancel: 2 } as const;

export interface ThreadedReaderOptions {
  /** Rows per message. Default 2,000. */
  chunkRows?: number;
  /**
   * Messages the reading thread may post ahead of the compile: it waits past them and past
   * aheadBytes (whichever allows more), so memory stays flat. Default 16.
   */
  chunksAhead?: number;
  /**
   * Text of rows the reading thread may post ahead: small rows (an unchanged row is a few ids)
   * make small messages, so it reads further ahead of a pass that takes few rows. Default 16 MiB.
   */
  aheadBytes?: number;
  /** The worker module (default: reader-worker.js next to this file, from the build). */
  workerUrl?: URL;
}

/** No message for this long means the reading thread is gone. */
const STALLED_MS = 120_000;

/**
 * A GraphReader whose SQLite reads run in a thread of their own (src/ingest/graph/reader-worker.ts), in
 * one read transaction there: the compile reads the graph as one state, as with one connection.
 * Stepping SQLite was about a fifth of a large compile's thread (docs/publishing.md "The reading
 * thread"); the rows arrive as the same JSON strings SqliteGraphReader parses, a few thousand to
 * a message, taken synchronously (receiveMessageOnPort, Atomics.wait) as the compile is
 * synchronous. One query at a time, in the order the compile asks; the compile's plan (plan())
 * lets the thread start each query while the compile still reads the one before, as a query
 * that sorts (the facts) sends nothing until it has sorted.
 */
export class ThreadedGraphReader implements GraphReader {
  private reading = false;
  /** Queries begun so far: the number of the one being read. */
  private begun = 0;
  /** Reads of the plan the thread runs ahead, not begun by the compile yet. */
  private planned: ReaderRequest[] = [];

  private constructor(
    private readonly worker: Worker,
    private readonly port: MessagePort,
    private readonly signal: Int32Array,
  ) {}

  /** Starts the reading thread on the graph file `file`; resolves once its read transaction has begun. */
  static async open(file: string, options: ThreadedReaderOptions = {}): Promise<ThreadedGraphReader> {
    const { port1, port2 } = new MessageChannel();
    const signal = new SharedArrayBuffer(4 * Object.keys(SIGNAL).length);
    const workerData: ReaderWorkerData = {
      file,
      port: port2,
      signal,
      chunkRows: options.chunkRows ?? 2000,
      chunksAhead: options.chunksAhead ?? 16,
      aheadBytes: options.aheadBytes ?? 16 * 1024 * 1024,
    };
    const worker = new Worker(options.workerUrl ?? readerWorkerUrl(), { workerData, transferList: [port2] });
    try {
      await new Promise<void>((resolve, reject) => {
        worker.once('message', () => resolve());
        worker.once('error', reject);
        worker.once('exit', (code) =>
          reject(new Error(`the graph reading thread exited (code ${code}) before it began reading`)),
        );
      });
    } catch (error) {
      port1.close();
      await worker.terminate();
      throw error;
    }
    worker.removeAllListeners();
    return new ThreadedGraphReader(worker, port1, new Int32Array(signal));
  }

  languages(): string[] {
    return this.ask('languages') as string[];
  }

  entities(language: string): Iterable<EntityRow>;
  entities(language: string, since: RowsSince | undefined): Iterable<EntityRow | UnchangedEntityRow>;
  entities(language: string, since?: RowsSince): Iterable<EntityRow | UnchangedEntityRow> {
    return this.rows('entities', ...rowsSinceParams(since), language);
  }

  facts(language: string): Iterable<FactRow> {
    return this.rows('facts', language);
  }

  factsSince(language: string, since: RowsSince): Iterable<FactRow | GoneFact> {
    return this.rows('factsSince', ...rowsSinceParams(since), language);
  }

  supersededCandidates(language: string): number {
    let count = 0;
    for (const value of this.rows('supersededCandidates', language)) count = value;
    return count;
  }

  relationships(language: string, since?: RowsSince): Iterable<RelationshipRow> {
    return this.rows('relationships', ...rowsSinceParams(since), language);
  }

  chunks(language: string, since?: RowsSince): Iterable<ChunkRow | UnchangedChunkRow> {
    return this.rows('chunks', ...rowsSinceParams(since), language);
  }

  graphState(): GraphState | undefined {
    return toGraphState(this.ask('graphState') as string | null);
  }

  qa(language: string, since?: RowsSince): Iterable<QaRow> {
    return uniqueQa(this.rows('qa', ...rowsSinceParams(since), language));
  }

  sources(since?: RowsSince): Iterable<SourceRow> {
    return this.rows('sources', ...rowsSinceParams(since));
  }

  chunkVectors(language: string, model: string): Iterable<ChunkVectorRow> {
    return this.rows('chunkVectors', language, model);
  }

  entityById(id: string): EntityRow | undefined {
    const json = this.ask('entityById', id) as string | null;
    return json === null ? undefined : GRAPH_QUERIES.entityById.row(JSON.parse(json) as unknown[]);
  }

  plan(reads: readonly PlannedRead[]): void {
    if (this.reading || this.planned.length > 0)
      throw new Error('the graph reading thread takes a plan only between reads');
    this.planned = reads.map((read) => ({ query: read.kind, params: plannedParams(read) }));
    this.port.postMessage({ plan: this.planned } satisfies ReaderAsk);
  }

  /** Ends the reading thread (and its read transaction). */
  async close(): Promise<void> {
    this.port.close();
    await this.worker.terminate();
  }

  private ask(query: ReaderRequest['query'], ...params: string[]): unknown {
    this.begin({ query, params });
    try {
      const message = this.take();
      if (message.error !== undefined) throw new Error(`reading the graph failed: ${message.error}`);
      return message.value;
    } finally {
      this.reading = false;
    }
  }

  private *rows<Q extends Exclude<GraphQueryName, 'entityById'>>(
    query: Q,
    ...params: string[]
  ): Generator<ReturnType<(typeof GRAPH_QUERIES)[Q]['row']>> {
    const { row } = GRAPH_QUERIES[query];
    this.begin({ query, params });
    const number = this.begun;
    let ended = false;
    try {
      while (!ended) {
        const message = this.take();
        ended = message.done === true || message.error !== undefined;
        if (message.error !== undefined) throw new Error(`reading the graph failed: ${message.error}`);
        if (message.rows !== undefined)
          for (const values of JSON.parse(message.rows) as unknown[][])
            yield row(values) as ReturnType<(typeof GRAPH_QUERIES)[Q]['row']>;
      }
    } finally {
      // Left before the end (a break, an error of the caller): the
      // thread stops the query, the rest of its messages are dropped.
      if (!ended) {
        Atomics.store(this.signal, SIGNAL.cancel, number);
        Atomics.notify(this.signal, SIGNAL.taken);
        for (let message = this.take(); message.done !== true && message.error === undefined; message = this.take());
      }
      this.reading = false;
    }
  }

  private begin(request: ReaderRequest): void {
    if (this.reading) throw new Error('the graph reading thread reads one query at a time: finish the last one first');
    const next = this.planned.shift();
    if (next === undefined) this.port.postMessage(request satisfies ReaderAsk);
    else if (next.query !== request.query || next.params.join('\u0000') !== request.params.join('\u0000')) {
      throw new Error(
        `the compile read ${request.query}(${request.params.join(', ')}) where its plan said ${next.query}(${next.params.join(', ')})`,
      );
    }
    this.reading = true;
    this.begun++;
  }

  /** The next message, waited for: the compile thread has nothing else to do until it comes. */
  private take(): ReaderMessage {
    const started = Date.now();
    for (;;) {
      const posted = Atomics.load(this.signal, SIGNAL.posted);
      const received = receiveMessageOnPort(this.port);
      if (received !== undefined) {
        Atomics.add(this.signal, SIGNAL.taken, 1);
        Atomics.notify(this.signal, SIGNAL.taken);
        return received.message as ReaderMessage;
      }
      Atomics.wait(this.signal, SIGNAL.posted, posted, 1000);
      if (Date.now() - started > STALLED_MS)
        throw new Error(`the graph reading thread sent nothing for ${STALLED_MS / 1000} s`);
    }
  }
}

/**
 * The worker's module, next to this one in the build. Running from the sources (vitest), a worker
 * thread cannot load .ts: the build's copy is used, which must then be current (npm run build).
 */
export function readerWorkerUrl(here: string = import.meta.url): URL {
  return workerModuleUrl(here, 'reader-worker.js', 'the graph reading thread');
}

/** The parameters a planned read's query takes, as the reader's method for it passes them. */
function plannedParams(read: PlannedRead): string[] {
  switch (read.kind) {
    case 'sources':
      return rowsSinceParams(read.since);
    case 'chunkVectors':
      return [read.language, read.model];
    case 'facts':
    case 'supersededCandidates':
      return [read.language];
    default:
      return [...rowsSinceParams(read.since), read.language];
  }
}
