/** The public face of src/platform/log: what the rest of src/ may import from it. */
export { silentLogger } from './logger.js';
export type { Logger } from './logger.js';
export { createPrettyLogStream, formatLogLine, prettyLogsWanted } from './pretty.js';
