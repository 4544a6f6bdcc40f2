/** The public face of src/platform/jobs: what the rest of src/ may import from it. */
export { JobPayloadError, describeIssues, parseJobPayload } from './payload.js';
export type { JobKind } from './payload.js';
export { ITEM_ERRORS_LISTED, JOB_STATES, JobQueue, withoutFsync } from './queue.js';
export type { Job, JobItemError, JobItemErrors, JobState, JobStore } from './queue.js';
export { isPromise } from './store.js';
export type { Awaitable } from './store.js';
