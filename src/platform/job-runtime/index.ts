/**
 * The public face of src/platform/job-runtime: defining job kinds, the worker and the scheduler.
 * Apart from src/platform/app so that a feature's job kind loads none of the HTTP shell.
 */
export { defineJob, JobDeferredError } from './define-job.js';
export type { JobContext, JobDefinition } from './define-job.js';
export { enqueueDuePeriodicJobs, startScheduler } from './job-scheduler.js';
export { JobWorker, laneConcurrency } from './job-worker.js';
export { jobsPruneJob } from './jobs-prune-job.js';
