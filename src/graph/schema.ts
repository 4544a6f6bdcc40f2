/**
 * Schema of graphs/<websiteId>.sqlite: one file per migration in src/storage/migrations/graph/
 * (see its index for how to add one), opened with GRAPH_DB_OPTIONS (src/storage/graph-db.ts).
 */
export { GRAPH_MIGRATIONS } from '../storage/migrations/graph/index.js';
export { GRAPH_DB_OPTIONS } from '../storage/graph-db.js';
