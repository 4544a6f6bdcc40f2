/** The public face of src/daemon: what the rest of src/ may import from it. */
export { JOBS } from './job-kinds.js';
export { ListenError, startDaemon } from './server.js';
export { createServices } from './services.js';
