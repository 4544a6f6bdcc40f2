/** The graph store: persists item contributions into graphs/<websiteId>.sqlite and reads them back. */
export {
  applyContribution,
  applyContributions,
  refreshSourceTrust,
  entityIdOf,
  factIdOf,
  chunkIdOf,
  sourceIdOf,
} from './apply-contribution.js';
export { removeItem, compactGraph, splitItemKey, type RemoveItemOptions } from './remove-item.js';
export { setEditorial, readEditorial, type EditorialPatch } from './editorial.js';
export {
  parseEditorialJsonl,
  applyEditorialEntries,
  resolveEditorialMatch,
  type EditorialEntry,
  type EditorialMatch,
} from './editorial-entries.js';
export {
  processRawItems,
  processRawItemsConcurrently,
  type ProcessRawItemsOptions,
  type ProcessRawItemsResult,
} from './process-raw-items.js';
export { createExtractionPool, sharedExtractionPool, type ExtractionPool } from './extraction-pool.js';
export { buildGraphFromItems, type BuildGraphOptions, type BuiltGraph } from './build-from-items.js';
export { SqliteGraphReader } from './reader.js';
export { GRAPH_DB_OPTIONS, GRAPH_MIGRATIONS } from './schema.js';
