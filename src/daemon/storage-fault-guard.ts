import { isStorageFault } from '../platform/errors/index.js';
import type { Logger } from '../platform/log/index.js';

/**
 * Keeps the daemon running when a full or failing disk throws where nothing catches it (a timer,
 * an event handler, a promise nobody awaits): the storage fault is logged and the daemon goes on,
 * since the work it interrupted is retried (jobs) or was answered 503 (requests). Any other
 * uncaught error ends the process as Node's default does, with its stack. Returns the uninstall.
 */
export function keepRunningOnStorageFaults(logger: Pick<Logger, 'error'>): () => void {
  const uninstall = () => {
    process.off('uncaughtException', onError);
    process.off('unhandledRejection', onError);
  };
  const onError = (error: unknown) => {
    if (isStorageFault(error)) {
      logger.error(
        { err: error },
        "storage fault outside a request or a job: the data directory's disk is full or failing; the daemon keeps running",
      );
      return;
    }
    // Not ours to survive: thrown again with no handler left, it ends the process as it always did.
    uninstall();
    process.nextTick(() => {
      throw error;
    });
  };
  process.on('uncaughtException', onError);
  process.on('unhandledRejection', onError);
  return uninstall;
}
