import { Worker } from 'node:worker_threads';
import { digestOf, DISCARDING_SINK, type NodeSink } from '../sink.js';
import type { ValidationReport } from './validate-node.js';
import { WrittenNodeCheck } from './written-node.js';
import type { WrittenCheckAnswer, WrittenCheckEvent, WrittenCheckWorkerData } from './written-node-worker.js';
import { workerModuleUrl } from '../../platform/threads/index.js';

export interface ParallelWrittenNodeCheckOptions {
  /** As WrittenNodeCheck's options. */
  recordsPassedSchemas?: boolean;
  websiteId?: string;
  /**
   * Bytes written before the check moves to a worker thread (default 8 MiB). A smaller node is
   * checked in the calling thread once written: a worker costs more to start than its scan.
   * Infinity when running from the sources (vitest) unless workerUrl is given.
   */
  handoverBytes?: number;
  /**
   * Chunks queued for the worker at most; the compile waits for room past it (default 256, 16 MiB of 64 KiB chunks).
   */
  maxQueuedChunks?: number;
  /** The worker's module (default: written-node-worker.js next to this file, from the build). */
  workerUrl?: URL;
}

const DEFAULT_HANDOVER_BYTES = 8 * 1024 * 1024;
const DEFAULT_MAX_QUEUED_CHUNKS = 256;
/** A worker that scans nothing for this long while the compile waits for room is taken to be gone. */
const STALL_MS = 60_000;

/**
 * WrittenNodeCheck on another core: the compile hands each chunk it writes to a worker thread,
 * which scans it (parses every record line, tracks ids and references) while the compile goes
 * on, then runs the node-level checks when asked for the report. On a large node the scan is
 * about a fifth of the compile's CPU, and during a publish the other core is otherwise idle.
 *
 * Events wait in this thread until handoverBytes have been written; a node that stays smaller is
 * checked here, as WrittenNodeCheck does. The queue to the worker is bounded (maxQueuedChunks):
 * past it the compile waits (Atomics.wait, as compileNode is synchronous), so memory stays flat
 * on a node of any size. The report is the same as WrittenNodeCheck's, which the worker runs.
 */
export class ParallelWrittenNodeCheck {
  private readonly handoverBytes: number;
  private readonly maxQueued: number;
  private readonly flow = new Int32Array(new SharedArrayBuffer(12));
  /** Events not yet handed to a worker (all of them, for a node that stays small). */
  private pending: WrittenCheckEvent[] = [];
  private bytes = 0;
  private worker: Worker | undefined;
  private answer: Promise<WrittenCheckAnswer> | undefined;

  constructor(
    readonly location: string,
    private readonly options: ParallelWrittenNodeCheckOptions = {},
  ) {
    const fromSources = import.meta.url.endsWith('.ts') && options.workerUrl === undefined;
    this.handoverBytes = fromSources ? Infinity : (options.handoverBytes ?? DEFAULT_HANDOVER_BYTES);
    this.maxQueued = Math.max(1, options.maxQueuedChunks ?? DEFAULT_MAX_QUEUED_CHUNKS);
  }

  /** Whether the check runs in a worker thread (once the node passed handoverBytes). */
  get inWorker(): boolean {
    return this.worker !== undefined;
  }

  /** The folder the sink given to sink() writes into (NodeSink.folder), for the check to read files back from. */
  private folder: string | undefined;

  /** A sink that writes through `inner` and shows each file's bytes to this check. */
  sink(inner: NodeSink): NodeSink {
    this.folder ??= inner.folder;
    return {
      open: (path) => {
        const target = inner.open(path);
        this.send({ kind: 'open', path });
        return {
          write: (chunk) => {
            this.send({ kind: 'write', path, chunk });
            target.write(chunk);
          },
          close: (written) => {
            target.close(written);
            this.send({ kind: 'close', path, written });
          },
          ...digestOf(target),
        };
      },
    };
  }

  /** WrittenNodeCheck's report on the files written so far; ends the worker. */
  async report(): Promise<ValidationReport> {
    if (this.worker === undefined) {
      const check = new WrittenNodeCheck(this.location, {
        recordsPassedSchemas: this.options.recordsPassedSchemas,
        ...(this.folder === undefined ? {} : { folder: this.folder }),
        ...(this.options.websiteId === undefined ? {} : { websiteId: this.options.websiteId }),
      });
      replay(this.pending.splice(0), check.sink(DISCARDING_SINK));
      return check.report();
    }
    const worker = this.worker;
    worker.ref(); // the answer is awaited: keep the process up for it
    try {
      worker.postMessage({ kind: 'report' } satisfies WrittenCheckEvent);
      const answer = await this.answer!;
      if (answer.kind === 'failed') throw new Error(`the check of the written node failed: ${answer.message}`);
      return answer.report;
    } finally {
      this.close();
    }
  }

  /** Ends the worker, if any (a compile that failed never asks for the report). */
  close(): void {
    void this.worker?.terminate();
  }

  private send(event: WrittenCheckEvent): void {
    if (this.worker === undefined) {
      this.pending.push(event);
      if (event.kind === 'write') this.bytes += event.chunk.length;
      if (this.bytes >= this.handoverBytes) this.handOver();
      return;
    }
    if (Atomics.load(this.flow, 1) === 1) return; // the worker failed: report() says why
    if (event.kind === 'write') {
      this.waitForRoom();
      Atomics.add(this.flow, 0, 1);
      // A view into a larger buffer (a pooled Buffer) would clone the whole buffer: send its bytes alone.
      const { chunk } = event;
      const own =
        chunk.byteOffset === 0 && chunk.byteLength === chunk.buffer.byteLength ? chunk : new Uint8Array(chunk);
      this.worker.postMessage({ ...event, chunk: own });
    } else this.worker.postMessage(event);
  }

  private handOver(): void {
    const data: WrittenCheckWorkerData = {
      location: this.location,
      recordsPassedSchemas: this.options.recordsPassedSchemas === true,
      ...(this.folder === undefined ? {} : { folder: this.folder }),
      ...(this.options.websiteId === undefined ? {} : { websiteId: this.options.websiteId }),
      flow: this.flow.buffer as SharedArrayBuffer,
    };
    const worker = (this.worker = new Worker(this.options.workerUrl ?? writtenCheckWorkerUrl(), { workerData: data }));
    this.answer = new Promise<WrittenCheckAnswer>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.once('exit', (code) =>
        reject(new Error(`the written-node check's worker exited (code ${code}) before its report`)),
      );
    });
    // A compile that throws never asks for the report: the worker must not keep the process up. After the
    // 'message' listener, which refs a worker again (Node 20).
    worker.unref();
    this.answer.catch(() => {}); // observed by report(); a compile that throws never asks
    replay(this.pending.splice(0), {
      open: (path) => (
        this.send({ kind: 'open', path }),
        {
          write: (chunk) => this.send({ kind: 'write', path, chunk }),
          close: (written) => this.send({ kind: 'close', path, written }),
        }
      ),
    });
  }

  /** Waits (blocking: the compile is synchronous) while maxQueued chunks wait for the worker. */
  private waitForRoom(): void {
    let queued = Atomics.load(this.flow, 0);
    let busy = Atomics.load(this.flow, 2);
    let since = Date.now();
    while (queued >= this.maxQueued && Atomics.load(this.flow, 1) === 0) {
      Atomics.wait(this.flow, 0, queued, 1000);
      const now = Atomics.load(this.flow, 0);
      // A worker reading a file back from the folder scans no chunk for a while, but is not gone.
      const reading = Atomics.load(this.flow, 2);
      if (now !== queued || reading !== busy) since = Date.now();
      else if (Date.now() - since > STALL_MS)
        throw new Error(`the written-node check's worker scanned nothing for ${STALL_MS / 1000} s`);
      queued = now;
      busy = reading;
    }
  }
}

/** Feeds recorded sink events to `sink`, in their order. */
function replay(events: WrittenCheckEvent[], sink: NodeSink): void {
  const files = new Map<string, ReturnType<NodeSink['open']>>();
  for (const event of events) {
    if (event.kind === 'open') files.set(event.path, sink.open(event.path));
    else if (event.kind === 'write') files.get(event.path)!.write(event.chunk);
    else if (event.kind === 'close') files.get(event.path)!.close(event.written);
  }
}

/**
 * The worker's module, next to this one in the build. Running from the sources (vitest), a worker
 * thread cannot load .ts: the build's copy is used, which must then be current (npm run build).
 */
export function writtenCheckWorkerUrl(here: string = import.meta.url): URL {
  return workerModuleUrl(here, 'written-node-worker.js', "the written-node check's worker");
}
