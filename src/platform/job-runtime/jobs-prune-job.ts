import { z } from 'zod';
import { defineJob } from './define-job.js';
import type { JobQueue } from '../jobs/index.js';

const DAY_MS = 86_400_000;

/** Deletes succeeded and dead jobs that finished more than `retentionDays` ago. */
export function pruneFinishedJobs(queue: JobQueue, now: number, retentionDays: number): number {
  return queue.pruneFinished(now - retentionDays * DAY_MS);
}

export const jobsPruneJob = defineJob({
  kind: 'maintenance.jobs.prune',
  lane: 'maintenance',
  payload: z.object({}),
  schedule: { intervalSeconds: 3600 },
  handler: async (_payload, { services }) =>
    void pruneFinishedJobs(services.jobs, services.now(), services.config.settings.jobRetentionDays),
});
