/** The public face of src/platform/app: what the rest of src/ may import from it. */
export { defineJob } from './define-job.js';
export type { JobContext, JobDefinition } from './define-job.js';
export { enqueueDuePeriodicJobs, startScheduler } from './job-scheduler.js';
export { JobWorker, laneConcurrency } from './job-worker.js';
export { jobsPruneJob } from './jobs-prune-job.js';
export type { Metrics } from './metrics.js';
export { rateLimitsPruneJob } from './rate-limits-prune-job.js';
export type { RoutePlugin, RoutePluginOptions } from './route-plugin.js';
export { assembleServices } from './services.js';
export type { AppServices, NodeOperations, RepublishRequest } from './services.js';
export { NODECTL_VERSION } from './version.js';
