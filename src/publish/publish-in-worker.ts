import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Settings } from '../config/settings.js';
import { AppError } from '../errors/app-error.js';
import type { ErrorCode } from '../errors/registry.js';
import type { Db } from '../storage/sqlite.js';
import { acquirePublishLock, PUBLISH_LOCK_TTL_MS } from './lock.js';
import type { PublishResult } from './publish-node.js';
import type { PlainPublishOptions, PublishWorkerInput, PublishWorkerMessage } from './publish-worker.js';
import type { PublishSource } from './run-publish.js';

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
  const { settings, controlDb, source, now: clock, signal, ...plain } = options;
  const now = clock ?? Date.now;
  signal?.throwIfAborted();
  const lock = plain.dryRun ? undefined : acquirePublishLock(controlDb, source.websiteId, { now });
  const renewal = lock ? setInterval(() => lock.renew(), PUBLISH_LOCK_TTL_MS / 4) : undefined;
  renewal?.unref();
  let stop: (() => void) | undefined;
  try {
    const input: PublishWorkerInput = { settings, source, options: plain, nowMs: now(), ...(lock ? { lockHolder: lock.holder } : {}) };
    const worker = new Worker(publishWorkerUrl(), { workerData: input });
    return await new Promise<PublishResult>((resolve, reject) => {
      let settled = false;
      const settle = (fn: () => void) => {
        if (!settled) {
          settled = true;
          fn();
        }
      };
      worker.on('message', (message: PublishWorkerMessage) => {
        if (message.kind === 'renew') lock?.renew();
        else if (message.kind === 'done') settle(() => resolve(message.result));
        else if (message.kind === 'app_error') settle(() => reject(new AppError(message.code as ErrorCode, message.message, { details: message.details, retryAfterSeconds: message.retryAfterSeconds })));
        else settle(() => reject(Object.assign(new Error(`publish worker: ${message.message}`), { stack: message.stack })));
      });
      worker.on('error', (error) => settle(() => reject(error)));
      let stopped = false;
      stop = () => {
        stopped = true;
        void worker.terminate();
      };
      signal?.addEventListener('abort', stop, { once: true });
      // 'exit' comes once the thread has ended, so a stopped worker writes nothing after the lock is released.
      worker.on('exit', (code) => settle(() => reject(stopped ? new Error(`the publish of website ${source.websiteId} was stopped; the previous version stays live`, { cause: signal?.reason }) : new Error(`the publish worker exited (code ${code}) before it answered`))));
    });
  } finally {
    if (stop) signal?.removeEventListener('abort', stop);
    if (renewal) clearInterval(renewal);
    lock?.release();
  }
}

/**
 * The worker's module, next to this one: dist/publish/publish-worker.js when the daemon runs from
 * the build. When this module runs from the sources (vitest transforms the .ts files in process,
 * but a worker thread is plain Node 20, which cannot load .ts), the build's copy is used, so
 * in-process tests of the publish route need `npm run build` first, like the tests that spawn
 * the binary.
 */
export function publishWorkerUrl(here: string = import.meta.url): URL {
  if (!here.endsWith('.ts')) return new URL('./publish-worker.js', here);
  const built = new URL('../../dist/publish/publish-worker.js', here);
  if (!existsSync(built)) throw new Error(`the publish worker runs from the build, and ${fileURLToPath(built)} is missing: run npm run build`);
  return built;
}
