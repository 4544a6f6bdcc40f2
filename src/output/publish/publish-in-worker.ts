import { Worker } from 'node:worker_threads';
import type { Settings } from '../../platform/config/index.js';
import { AppError, type ErrorCode } from '../../platform/errors/index.js';
import type { Db } from '../../platform/storage/index.js';
import { acquirePublishLock, PUBLISH_LOCK_TTL_MS } from './lock.js';
import type { PublishResult } from './publish-node.js';
import type { PublishProgressEvent } from './progress.js';
import type { PlainPublishOptions, PublishWorkerInput, PublishWorkerMessage } from './publish-worker.js';
import type { PublishSource } from './run-publish.js';
import { buildTimeAt } from '../../compiler/index.js';
import { releaseFreedMemory } from '../../platform/memory/index.js';
import { workerModuleUrl } from '../../platform/threads/index.js';

export interface PublishInWorkerOptions extends PlainPublishOptions {
  settings: Settings;
  /** The calling thread's control database: the lock is taken and renewed here. */
  controlDb: Db;
  source: PublishSource & { kind: 'website' };
  /** Clock (ms); default Date.now. */
  now?: () => number;
  /**
   * Stops the publish: the worker is terminated, the call rejects and the lock is released. Like a
   * kill at any step, the previous version stays live, whole (a job's stop() uses it).
   */
  signal?: AbortSignal;
  /** Told where the publish stands, as the worker reports it (the streamed route); default none. */
  onProgress?: (event: PublishProgressEvent) => void;
}

/**
 * runPublish in a worker thread, for the daemon: compiling a large website reads its SQLite graph
 * synchronously for seconds, which would stall every other request on the event loop. The site's
 * lock is taken here first, synchronously (a second publish of the site gets 409 publish.conflict
 * at once, before any worker starts), renewed while the worker runs and released when it ends.
 * The worker's AppErrors come back with their code, message and details; anything else becomes an
 * Error (internal.error for the client, its stack in the log).
 */
export async function runPublishInWorker(options: PublishInWorkerOptions): Promise<PublishResult> {
  const { settings, controlDb, source, now: clock, signal, onProgress, ...plain } = options;
  const now = clock ?? Date.now;
  signal?.throwIfAborted();
  const lock = plain.dryRun ? undefined : acquirePublishLock(controlDb, source.websiteId, { now });
  // A renewal that cannot be written (a full disk) is skipped: the lock then lapses, as a crashed publish's does.
  const renew = () => {
    try {
      lock?.renew();
    } catch {
      // the next renewal tries again
    }
  };
  const renewal = lock ? setInterval(renew, PUBLISH_LOCK_TTL_MS / 4) : undefined;
  renewal?.unref();
  let stop: (() => void) | undefined;
  let started: Worker | undefined;
  try {
    const startedAt = now();
    const input: PublishWorkerInput = {
      settings,
      source,
      // The version is built at the caller's time of asking, not at the worker's: a worker's start-up
      // varies, and two publishes asked in order must never build their versions in the other order.
      options: { ...plain, buildTime: plain.buildTime ?? buildTimeAt(startedAt) },
      nowMs: startedAt,
      ...(lock ? { lockHolder: lock.holder } : {}),
      ...(onProgress ? { reportProgress: true } : {}),
    };
    if (makeRoom) {
      await makeRoom();
      signal?.throwIfAborted(); // stopped meanwhile: an aborted signal would never call the listener below
    }
    const worker = (started = startWorker(input));
    return await new Promise<PublishResult>((resolve, reject) => {
      let settled = false;
      const settle = (fn: () => void) => {
        if (!settled) {
          settled = true;
          fn();
        }
      };
      worker.on('message', (message: PublishWorkerMessage) => {
        if (message.kind === 'renew') renew();
        else if (message.kind === 'progress') {
          if (!settled) onProgress?.(message.event);
        } else if (message.kind === 'done') settle(() => resolve(message.result));
        else if (message.kind === 'app_error')
          settle(() =>
            reject(
              new AppError(message.code as ErrorCode, message.message, {
                details: message.details,
                retryAfterSeconds: message.retryAfterSeconds,
              }),
            ),
          );
        else
          settle(() =>
            reject(Object.assign(new Error(`publish worker: ${message.message}`), { stack: message.stack })),
          );
      });
      worker.on('error', (error) => settle(() => reject(error)));
      let stopped = false;
      stop = () => {
        stopped = true;
        void worker.terminate();
      };
      signal?.addEventListener('abort', stop, { once: true });
      // 'exit' comes once the thread has ended, so a stopped worker writes nothing after the lock is released.
      worker.on('exit', (code) =>
        settle(() =>
          reject(
            stopped
              ? new Error(`the publish of website ${source.websiteId} was stopped; the previous version stays live`, {
                  cause: signal?.reason,
                })
              : new Error(`the publish worker exited (code ${code}) before it answered`),
          ),
        ),
      );
    });
  } finally {
    if (stop) signal?.removeEventListener('abort', stop);
    if (renewal) clearInterval(renewal);
    try {
      lock?.release();
    } catch {
      // not written (a full disk): the lock lapses after PUBLISH_LOCK_TTL_MS, or at once as a dead process's
    }
    // The next publish's thread is started once this one has ended: not while it competes for the
    // cores, nor while its thread still holds its memory (docs/publishing.md, HTTP). What the thread
    // freed goes back to the system then, not kept by the allocator for the next publish.
    const startSpare = keepSpare; // a thread ending late must not start a spare for another caller's publish
    afterExit(started, () => {
      if (startSpare) prepareSpare();
      void releaseFreedMemory();
    });
  }
}

/** Calls `then` once `worker` has exited (at once when there is none, or it has already). */
function afterExit(worker: Worker | undefined, then: () => void): void {
  if (worker === undefined || worker.threadId === -1) then();
  else worker.once('exit', then);
}

/** A worker started ahead of the next publish, its modules loaded (publish-worker.ts): its first message is its input. */
let spare: Worker | undefined;
let keepSpare = false;
/** Awaited before each publish's thread starts (makeRoomBeforeEachPublish). */
let makeRoom: (() => Promise<void>) | undefined;

/**
 * Awaits `work` before each publish's thread starts. The daemon ends its idle ingest threads there,
 * so that the compile has their memory (docs/publishing.md, HTTP). A failure of `work` is ignored:
 * the publish goes on with less room.
 */
export function makeRoomBeforeEachPublish(work: (() => Promise<void>) | undefined): void {
  makeRoom = work && (() => work().catch(() => undefined));
}

/** The spare worker with `input` sent to it, else a new worker given `input` as its workerData. */
function startWorker(input: PublishWorkerInput): Worker {
  const worker = spare;
  spare = undefined;
  if (worker === undefined) return new Worker(publishWorkerUrl(), { workerData: input });
  worker.ref();
  worker.postMessage(input);
  return worker;
}

function prepareSpare(): void {
  // Also asked once a publish's thread has ended, which may come after the daemon stopped keeping one.
  if (!keepSpare || spare !== undefined) return;
  const worker = new Worker(publishWorkerUrl());
  // An idle spare never keeps the process alive.
  worker.unref();
  const forget = () => {
    if (spare === worker) spare = undefined;
  };
  worker.once('error', forget);
  worker.once('exit', forget);
  spare = worker;
}

/**
 * Keeps one publish worker started ahead, its modules loaded, from now on (the daemon calls it
 * when it starts): a publish then begins compiling at once instead of after a new thread has
 * loaded the compiler (docs/publishing.md measures the gain).
 * Each worker still runs one publish and exits.
 */
export function keepSparePublishWorker(): void {
  keepSpare = true;
  prepareSpare();
}

/** The spare waiting for the next publish, if any (for tests and diagnostics). */
export function sparePublishWorker(): Worker | undefined {
  return spare;
}

/** Stops keeping a spare and ends the one waiting (the daemon's shutdown). */
export async function closeSparePublishWorker(): Promise<void> {
  keepSpare = false;
  const worker = spare;
  spare = undefined;
  await worker?.terminate();
}

/**
 * The worker's module, next to this one: dist/output/publish/publish-worker.js when the daemon runs from
 * the build. When this module runs from the sources (vitest transforms the .ts files in process,
 * but a worker thread is plain Node 20, which cannot load .ts), the build's copy is used, so
 * in-process tests of the publish route need `npm run build` first, like the tests that spawn
 * the binary.
 */
export function publishWorkerUrl(here: string = import.meta.url): URL {
  return workerModuleUrl(here, 'publish-worker.js', 'the publish worker');
}
