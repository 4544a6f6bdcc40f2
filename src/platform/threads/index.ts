/** The public face of src/platform/threads: what the rest of src/ may import from it. */
export { lowerThreadPriority } from './priority.js';
export { nameThread } from './thread-name.js';
export { workerModuleUrl } from './worker-url.js';
