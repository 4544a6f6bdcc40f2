import { GRAPH_MIGRATIONS } from '../storage/migrations/graph/index.js';

/**
 * Schema of graphs/<websiteId>.sqlite: one file per migration in src/storage/migrations/graph/
 * (see its index for how to add one).
 */
export { GRAPH_MIGRATIONS };

/**
 * How every graph database is opened. 16 KiB pages: raw item bodies of 2 to 20 KB overflow
 * 4 KiB pages into long chains; 16 KiB pages halve the CPU of inserting a 500-item batch
 * (docs/decisions.md). SQLite applies the size only when it creates the file.
 */
export const GRAPH_DB_OPTIONS = { migrations: GRAPH_MIGRATIONS, pageSize: 16_384 } as const;
