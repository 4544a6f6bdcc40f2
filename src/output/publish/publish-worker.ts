import { parentPort, workerData } from 'node:worker_threads';
import type { Settings } from '../../platform/config/index.js';
import { isAppError, storageUnavailableError } from '../../platform/errors/index.js';
import { openControlDb, dataDirLayout, type Db } from '../../platform/storage/index.js';
import type { PublishResult } from './publish-node.js';
import { runPublish, type PublishSource, type RunPublishOptions } from './run-publish.js';
import { trackPublishProgress, type PublishProgressEvent } from './progress.js';
import { createTargetFromSettings } from './targets/index.js';
import type { PublishTarget } from './targets/types.js';
import { nameThread } from '../../platform/threads/index.js';

/**
 * The options of runPublish that are plain data, given to the worker as they are (a new plain
 * option of runPublish reaches the worker without more code); databases, targets, clocks,
 * progress callbacks and the lock stay with each thread.
 */
export type PlainPublishOptions = Omit<
  RunPublishOptions,
  'settings' | 'controlDb' | 'target' | 'source' | 'now' | 'progress' | 'lock'
>;

/** What the calling thread sends (structured clone: plain data only). */
export interface PublishWorkerInput {
  settings: Settings;
  source: PublishSource;
  options: PlainPublishOptions;
  /** The caller's clock at the start (ms); the worker's clock runs on from it. */
  nowMs: number;
  /** Holder of the site's publish lock, taken by the calling thread; absent on a dry run. */
  lockHolder?: string;
  /** Post progress events while the publish runs (the streamed route); default false. */
  reportProgress?: boolean;
}

/** What the worker answers: one message, then it exits. */
export type PublishWorkerMessage =
  | { kind: 'renew' }
  | { kind: 'progress'; event: PublishProgressEvent }
  | { kind: 'done'; result: PublishResult }
  | { kind: 'app_error'; code: string; message: string; details?: Record<string, unknown>; retryAfterSeconds?: number }
  | { kind: 'failed'; message: string; stack?: string };

/**
 * The worker side of runPublishInWorker: the compile (synchronous SQLite reads) and the atomic
 * sequence run here, off the daemon's event loop. It opens its own control database and target;
 * the lock stays with the calling thread, which renews it when asked.
 */
async function main(input: PublishWorkerInput, post: (message: PublishWorkerMessage) => void): Promise<void> {
  const started = Date.now();
  const settings = input.settings;
  let controlDb: Db | undefined;
  let target: PublishTarget | undefined;
  try {
    controlDb = openControlDb(dataDirLayout(settings.dataDir), settings.controlStore);
    target = await createTargetFromSettings(settings);
    const lock =
      input.lockHolder === undefined
        ? undefined
        : { holder: input.lockHolder, renew: () => post({ kind: 'renew' }), release() {} };
    const result = await runPublish({
      ...input.options,
      settings,
      controlDb,
      target,
      source: input.source,
      now: () => input.nowMs + (Date.now() - started),
      ...(lock ? { lock } : {}),
      ...(input.reportProgress
        ? { progress: trackPublishProgress({ update: (event) => post({ kind: 'progress', event }), stop() {} }) }
        : {}),
    });
    post({ kind: 'done', result });
  } catch (thrown) {
    // A full or failing disk crosses back as its AppError (503), not as a failure of the publish (500).
    const error = storageUnavailableError(thrown) ?? thrown;
    if (isAppError(error))
      post({
        kind: 'app_error',
        code: error.code,
        message: error.message,
        ...(error.details ? { details: error.details } : {}),
        ...(error.retryAfterSeconds !== undefined ? { retryAfterSeconds: error.retryAfterSeconds } : {}),
      });
    else post({ kind: 'failed', message: (error as Error)?.message ?? String(error), stack: (error as Error)?.stack });
  } finally {
    await target?.close();
    controlDb?.close();
  }
}

/**
 * The modules a publish imports on its way (runPublish imports the compiler when it needs it): a
 * spare worker loads them while it waits, so its publish starts compiling at once.
 */
function preload(): Promise<unknown> {
  return import('../../compiler/index.js');
}

if (parentPort) {
  nameThread('nodectl-publish');
  const port = parentPort;
  const post = (message: PublishWorkerMessage) => port.postMessage(message);
  if (workerData !== null && workerData !== undefined) {
    await main(workerData as PublishWorkerInput, post);
  } else {
    // A spare (publish-in-worker.ts): its one publish comes as the first message.
    const loaded = preload();
    port.once('message', (input: PublishWorkerInput) => {
      // A module that failed to load fails the publish that imports it, with its own error.
      void loaded.then(
        () => main(input, post),
        () => main(input, post),
      );
    });
  }
}
