import type { JobHandler } from './handlers.js';
import { expireControlRecords, pruneFinishedJobs, pruneRateLimitCounters } from './maintenance.js';

/**
 * Handlers of every job kind the worker runs. Each issue adds its kinds here. A periodic kind
 * without real work has no handler and is not scheduled (PLANNED_PERIODIC_JOBS in handlers.ts).
 */
export function jobHandlers(): ReadonlyMap<string, JobHandler> {
  return new Map<string, JobHandler>([
    ['maintenance.expire', async (_job, services) => void expireControlRecords(services.controlDb, services.now())],
    ['maintenance.rate_limits.prune', async (_job, services) => void pruneRateLimitCounters(services.controlDb, services.now())],
    ['maintenance.jobs.prune', async (_job, services) => void pruneFinishedJobs(services.jobs, services.now(), services.config.settings.jobRetentionDays)],
    // Loaded on first use: the extractor (htmlparser2, css-select) stays out of daemon start-up.
    ['content.ingest', async (job, services, signal) => (await import('../graph/content-ingest-job.js')).contentIngestHandler(job, services, signal)],
    // Coalesced republish after deletes (src/ingest/delete-items.ts); the publisher loads on first use.
    ['node.republish', async (job, services, signal) => (await import('./republish-node.js')).republishHandler(job, services, signal)],
  ]);
}
