import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { FieldMapping } from '../../platform/contract/index.js';
import type { WebsiteInfo } from '../../control/records/index.js';
import { readExtractedRows, type ExtractOutcome, type RawRow } from './extract-row.js';
import type { ExtractRequest, ExtractResponse, PendingExtraction } from './extract-worker.js';
import { workerModuleUrl } from '../../platform/threads/index.js';
import { WARM_UP_SITE } from './warm-up-pages.js';

/**
 * Worker threads that extract raw rows (src/ingest/extract is pure CPU work on plain data), so that
 * content.ingest extracts one batch while its own thread writes the previous one to SQLite
 * (processRawItemsConcurrently), and the daemon's event loop is not blocked by extraction.
 */
export interface ExtractionPool {
  /** Worker threads at most; the caller keeps this many batches plus one in flight. */
  readonly size: number;
  /** Extracts each row in a worker; a bad item's error comes back in its slot. Rejects only when a worker fails. */
  extract(site: WebsiteInfo, mappings: FieldMapping[], rows: RawRow[]): Promise<ExtractOutcome[]>;
  /**
   * extract() on the rows of `ids` still pending in the graph file `file`, or still in the inbox
   * file `inboxFile` (moved with the batch when it is written), which the worker reads (bodies are
   * not sent back). Rejects when a worker fails or cannot read the files.
   */
  extractPending(
    site: WebsiteInfo,
    mappings: FieldMapping[],
    file: string,
    ids: string[],
    inboxFile?: string,
  ): Promise<PendingExtraction>;
  /**
   * extractPending() as the worker's JSON text in UTF-8, unread: for the graph writer thread, which
   * reads it instead (graph-writer.ts), so it never becomes a string in the calling thread.
   */
  extractPendingText(
    site: WebsiteInfo,
    mappings: FieldMapping[],
    file: string,
    ids: string[],
    inboxFile?: string,
  ): Promise<Uint8Array>;
  /**
   * Extracts `pages` made-up pages in every worker (warm-up-pages.ts), so that V8 has optimised
   * the extractor before the first real batch (docs/graph.md "A warm start"). Stops early once a
   * real batch is asked for. Workers are kept from then on, idle or not: a new one would start
   * cold. Resolves when done, stopped, or a worker failed.
   */
  warmUp(pages: number): Promise<void>;
  /**
   * Ends the workers that have nothing to do now, warmed up or not, and keeps the pool open: the
   * next batch starts a worker again (cold). For a publish about to compile, which needs the memory.
   * Resolves with how many ended.
   */
  endIdle(): Promise<number>;
  /** Worker threads running now (started, not yet ended). */
  readonly running: number;
  /** Ends the workers (those in use once their batch is done). */
  close(): Promise<void>;
}

export interface ExtractionPoolOptions {
  size: number;
  /** The worker module (default: extract-worker.js next to this file, from the build). */
  workerUrl?: URL;
  /** Workers idle this long are ended; the next batch starts them again. Default 30 s; never once warmed up. */
  idleMs?: number;
}

/** Warm-up pages per request: a real batch that arrives meanwhile waits for at most this many. */
const WARM_UP_BATCH = 25;

/** A parsed response: ExtractOutcome[] for a rows request, PendingExtraction for a file request. */
type Parsed = unknown;
/** A request posted or waiting: how its answer's text is read, and the caller's promise. */
interface Pending {
  decode: (bytes: Uint8Array) => Parsed;
  resolve: (o: Parsed) => void;
  reject: (e: Error) => void;
}
/** A worker and the requests posted to it, by id, in the order it answers them. */
interface Slot {
  worker: Worker;
  posted: Map<number, Pending>;
  idleTimer?: NodeJS.Timeout;
}
interface Waiting extends Pending {
  request: ExtractRequest;
}

/**
 * At most this many requests posted to one worker at once. A worker takes the next one from its own message queue
 * as soon as it answers one; with one request at a time, it waited for the calling thread to read
 * the answer and post the next, which it cannot do while it writes a batch (processRawItemsConcurrently).
 */
const POSTED_PER_WORKER = 8;

export function createExtractionPool(options: ExtractionPoolOptions): ExtractionPool {
  const url = options.workerUrl ?? extractWorkerUrl();
  const idleMs = options.idleMs ?? 30_000;
  const slots = new Set<Slot>();
  const queue: Waiting[] = [];
  let nextId = 1;
  let closed = false;
  /** Real batches asked for so far: a warm-up stops at the first one. */
  let batchesAsked = 0;
  let keepIdleWorkers = false;

  const retire = (slot: Slot): Promise<unknown> => {
    clearTimeout(slot.idleTimer);
    slots.delete(slot);
    return slot.worker.terminate();
  };
  /** The worker with the fewest requests posted, a new one while the pool has room and none is free. */
  const pick = (): Slot | undefined => {
    let best: Slot | undefined;
    for (const slot of slots) if (!best || slot.posted.size < best.posted.size) best = slot;
    if ((!best || best.posted.size > 0) && slots.size < options.size) return start();
    return best && best.posted.size < POSTED_PER_WORKER ? best : undefined;
  };
  const dispatch = () => {
    while (queue.length > 0) {
      const slot = pick();
      if (!slot) return;
      const { request, ...pending } = queue.shift()!;
      clearTimeout(slot.idleTimer);
      slot.posted.set(request.id, pending);
      // Referenced while it works, so a process waiting only for its batches does not exit.
      slot.worker.ref();
      slot.worker.postMessage(request);
    }
  };
  const start = (): Slot => {
    const slot: Slot = { worker: new Worker(url), posted: new Map() };
    slot.worker.on('message', (response: ExtractResponse) => {
      const pending = slot.posted.get(response.id);
      slot.posted.delete(response.id);
      if (slot.posted.size === 0) {
        slot.worker.unref();
        if (!keepIdleWorkers) slot.idleTimer = setTimeout(() => void retire(slot), idleMs).unref();
      }
      if (pending) {
        try {
          pending.resolve(pending.decode(response.outcomes));
        } catch (error) {
          pending.reject(error as Error);
        }
      }
      dispatch();
    });
    const fail = (error: Error) => {
      void retire(slot);
      for (const pending of slot.posted.values()) pending.reject(error);
      slot.posted.clear();
      dispatch();
    };
    slot.worker.on('error', fail);
    slot.worker.on('exit', (code) => fail(new Error(`the extraction worker exited (code ${code})`)));
    // After the 'message' listener: adding one refs a worker again (Node 20), and an idle worker must not keep the process up.
    slot.worker.unref();
    slots.add(slot);
    return slot;
  };

  const send = <T>(request: ExtractRequest, decode: (bytes: Uint8Array) => T): Promise<T> => {
    if (closed) return Promise.reject(new Error('the extraction pool is closed'));
    return new Promise((resolve, reject) => {
      queue.push({ request, decode, resolve: resolve as (o: Parsed) => void, reject });
      dispatch();
    });
  };

  return {
    size: options.size,
    get running() {
      return slots.size;
    },
    extract: (site, mappings, rows) => (
      batchesAsked++,
      send({ id: nextId++, site, mappings, rows }, (bytes) =>
        readExtractedRows(JSON.parse(textOf(bytes)) as ExtractOutcome[]),
      )
    ),
    extractPending: (site, mappings, file, ids, inboxFile) => (
      batchesAsked++,
      send({ id: nextId++, site, mappings, file, ids, inboxFile }, readPendingExtraction)
    ),
    extractPendingText: (site, mappings, file, ids, inboxFile) => (
      batchesAsked++,
      send({ id: nextId++, site, mappings, file, ids, inboxFile }, (bytes) => bytes)
    ),
    async warmUp(pages) {
      keepIdleWorkers = true;
      for (const slot of slots) clearTimeout(slot.idleTimer);
      const before = batchesAsked;
      // One request at a time per loop, and one loop per worker: pick() gives each its own.
      const warmOne = async () => {
        for (let first = 0; first < pages && !closed && batchesAsked === before; first += WARM_UP_BATCH) {
          await send(
            {
              id: nextId++,
              site: WARM_UP_SITE,
              mappings: [],
              warmUp: { first, count: Math.min(WARM_UP_BATCH, pages - first) },
            },
            () => undefined,
          );
        }
      };
      await Promise.all(Array.from({ length: options.size }, warmOne)).catch(() => undefined);
    },
    async endIdle() {
      const idle = [...slots].filter((slot) => slot.posted.size === 0);
      await Promise.all(idle.map(retire));
      return idle.length;
    },
    async close() {
      closed = true;
      for (const waiting of queue.splice(0)) waiting.reject(new Error('the extraction pool is closed'));
      await Promise.all([...slots].map((slot) => (clearTimeout(slot.idleTimer), slot.worker.terminate())));
      slots.clear();
    },
  };
}

/**
 * The worker's module, next to this one in the build. Running from the sources (vitest), a worker
 * thread cannot load .ts: the build's copy is used, which must then be current (npm run build).
 */
export function extractWorkerUrl(here: string = import.meta.url): URL {
  return workerModuleUrl(here, 'extract-worker.js', 'the extraction worker');
}

/** A PendingExtraction's JSON text in UTF-8, as the extraction worker answers it, read back. */
export function readPendingExtraction(bytes: Uint8Array): PendingExtraction {
  const pending = JSON.parse(textOf(bytes)) as PendingExtraction;
  readExtractedRows(pending.outcomes);
  return pending;
}

function textOf(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

let shared: ExtractionPool | undefined;

/**
 * The process's pool for content.ingest: one worker per core but one (the calling thread writes),
 * at least one, at most four. Undefined when running from the sources (vitest): there the job
 * extracts in its own thread, so a test never runs an extractor older than the sources.
 */
export function sharedExtractionPool(): ExtractionPool | undefined {
  if (import.meta.url.endsWith('.ts')) return undefined;
  shared ??= createExtractionPool({ size: Math.max(1, Math.min(4, availableParallelism() - 1)) });
  return shared;
}

/** The process's pool if something has made it, without making it. */
export function sharedExtractionPoolIfMade(): ExtractionPool | undefined {
  return shared;
}
