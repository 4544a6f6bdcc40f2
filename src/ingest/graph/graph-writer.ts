import { Worker } from 'node:worker_threads';
import type { WebsiteInfo } from '../../control/records/index.js';
import { workerModuleUrl } from '../../platform/threads/index.js';
import type { PendingExtraction } from './extract-worker.js';
import type { ProcessRawItemsResult } from './run-result.js';
import type { WriteTurn } from './write-turn.js';

/** One batch for the writer thread to write into the graph file `file` (processRawItemsConcurrently). */
export interface GraphWrite {
  file: string;
  /** The file's write turn, shared with the event loop's writes (write-turn.ts). */
  turn: WriteTurn;
  site: WebsiteInfo;
  /** The batch's raw content ids, and their extraction (rows that were pending, and their outcomes). */
  batch: string[];
  extracted: Extracted;
  /** RFC 3339 UTC time written to processed_at. */
  now: string;
  /** The website's inbox file: the batch's rows still there are moved into raw_items in the batch's transaction. */
  inboxFile?: string;
}

/**
 * A batch's extraction: the pending rows and their outcomes, or the extraction worker's JSON text
 * of them in UTF-8, which the writer thread reads (copied to it: the caller writes the batch itself
 * if the thread stops).
 */
export type Extracted = PendingExtraction | Uint8Array;

/** A batch to write. */
export type GraphWriteRequest = GraphWrite & { id: number };
/** What a batch's write did, or why it failed (with the SQLite or errno code, so a full disk is known as one). */
export type GraphWriteResponse = { id: number } & (
  { result: ProcessRawItemsResult } | { error: string; code?: string }
);

/**
 * The writer thread ended (failed, or was closed) before it answered. Parts of the batch it
 * committed are no longer pending: written again elsewhere, they are skipped.
 */
export class GraphWriterStopped extends Error {
  constructor(reason: string) {
    super(`the graph writer thread stopped: ${reason}`);
    this.name = 'GraphWriterStopped';
  }
}

/**
 * A thread that writes extracted batches into graph files (write-worker.ts), so that the daemon's
 * event loop is not blocked by the graph's write transactions (docs/graph.md "The writer thread").
 */
export interface GraphWriter {
  /** Resolves with what the batch's write did once committed; rejects with the write's error, or GraphWriterStopped. */
  write(request: GraphWrite): Promise<ProcessRawItemsResult>;
  /** Starts the thread now rather than at the first write, which then finds its modules loaded (the daemon's warm start). */
  start(): void;
  /** Whether the thread is running now (started, not yet ended). */
  readonly running: boolean;
  /** Ends the thread if it has no write to answer (resolves true then); the next write starts it again. For a publish about to compile. */
  endIdle(): Promise<boolean>;
  /** Ends the thread; writes not yet answered reject with GraphWriterStopped. */
  close(): Promise<void>;
}

interface Pending {
  resolve: (answer: ProcessRawItemsResult) => void;
  reject: (error: Error) => void;
}

/**
 * Starts the thread at the first write, and again at the next write after it ended. The thread is
 * kept while idle (a new one would start with cold code) but does not keep the process alive.
 */
export function createGraphWriter(options: { workerUrl?: URL } = {}): GraphWriter {
  const url = options.workerUrl ?? writeWorkerUrl();
  const pending = new Map<number, Pending>();
  let worker: Worker | undefined;
  let nextId = 1;

  const stop = (gone: Worker, reason: string) => {
    if (worker !== gone) return;
    worker = undefined;
    for (const p of pending.values()) p.reject(new GraphWriterStopped(reason));
    pending.clear();
  };
  const start = (): Worker => {
    const started = new Worker(url);
    started.on('message', (response: GraphWriteResponse) => {
      const p = pending.get(response.id);
      pending.delete(response.id);
      if (pending.size === 0) started.unref();
      if (!p) return;
      if ('result' in response) p.resolve(response.result);
      else
        p.reject(Object.assign(new Error(response.error), response.code === undefined ? {} : { code: response.code }));
    });
    started.on('error', (error) => stop(started, error.message));
    started.on('exit', (code) => stop(started, `it exited (code ${code})`));
    // After the 'message' listener: adding one refs a worker again (Node 20), so a thread started and never
    // written to (the daemon's warm start) kept an idle daemon from exiting after SIGTERM.
    started.unref();
    return started;
  };

  const post = (request: GraphWrite): Promise<ProcessRawItemsResult> => {
    worker ??= start();
    const id = nextId++;
    // Referenced while it has requests to answer, so a process waiting only for them does not exit.
    worker.ref();
    const answer = new Promise<ProcessRawItemsResult>((resolve, reject) => pending.set(id, { resolve, reject }));
    worker.postMessage({ ...request, id } satisfies GraphWriteRequest);
    return answer;
  };

  return {
    start() {
      worker ??= start();
    },
    get running() {
      return worker !== undefined;
    },
    write: post,
    async endIdle() {
      const idle = worker;
      if (!idle || pending.size > 0) return false;
      stop(idle, 'it was idle');
      await idle.terminate();
      return true;
    },
    async close() {
      const closing = worker;
      if (!closing) return;
      stop(closing, 'it was closed');
      await closing.terminate();
    },
  };
}

/** The writer thread's module, next to this one in the build (workerModuleUrl). */
export function writeWorkerUrl(here: string = import.meta.url): URL {
  return workerModuleUrl(here, 'write-worker.js', 'the graph writer thread');
}

let shared: GraphWriter | undefined;

/** The process's writer thread for content.ingest; undefined when running from the sources (vitest), as sharedExtractionPool. */
export function sharedGraphWriter(): GraphWriter | undefined {
  if (import.meta.url.endsWith('.ts')) return undefined;
  shared ??= createGraphWriter();
  return shared;
}

/** The process's writer thread if something has made it, without making it. */
export function sharedGraphWriterIfMade(): GraphWriter | undefined {
  return shared;
}
