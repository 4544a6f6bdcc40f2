/**
 * Schema of graphs/<websiteId>.sqlite: one file per migration in src/platform/storage/migrations/graph/
 * (see its index for how to add one), opened with GRAPH_DB_OPTIONS (src/platform/storage/graph-db.ts).
 */
export { GRAPH_MIGRATIONS } from '../../platform/storage/index.js';
export { GRAPH_DB_OPTIONS } from '../../platform/storage/index.js';
