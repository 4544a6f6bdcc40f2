import type { JobHandler } from './handlers.js';
import { expireControlRecords } from './maintenance.js';

/**
 * Handlers of every job kind the worker runs. Each issue adds its kinds here; a periodic kind
 * whose work has not arrived yet is a no-op so the schedule stays visible in `nodectl jobs list`.
 */
export function jobHandlers(): ReadonlyMap<string, JobHandler> {
  const noop: JobHandler = async () => {};
  return new Map<string, JobHandler>([
    ['maintenance.expire', async (_job, services) => void expireControlRecords(services.controlDb, services.now())],
    ['analytics.aggregate', noop],
    ['verification.check', noop],
    ['connector.heartbeat.check', noop],
  ]);
}
