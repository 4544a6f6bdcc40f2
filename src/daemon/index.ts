/** The public face of src/daemon: what the rest of src/ may import from it. */
export { JOBS } from './job-definitions.js';
export { ControlStoreError, ListenError, startDaemon } from './server.js';
export { createServices } from './create-services.js';
