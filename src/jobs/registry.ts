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
    // Loaded on first use: the extractor (htmlparser2, css-select) stays out of daemon start-up.
    ['content.ingest', async (job, services, signal) => (await import('../graph/content-ingest-job.js')).contentIngestHandler(job, services, signal)],
  ]);
}
