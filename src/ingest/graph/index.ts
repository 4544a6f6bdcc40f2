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
export { contentIngestJob } from './content-ingest-job.js';
export { sharedGraphWriter } from './graph-writer.js';
export { endIdleIngestThreads, type EndedIngestThreads } from './idle-threads.js';
export { pendingRawContentIds, writeRawItems } from './raw-items.js';
export { emptyInbox, inboxRawContentIds, moveFromInbox, unchangedInboxOutcomes, writeInboxItems } from './inbox.js';
export type { WriteOutcome } from './raw-items.js';
export { ThreadedGraphReader } from './reader-thread.js';
export { refreshGraphTrust } from './refresh-trust.js';
export { ROWID_RANGE, ftsRowidSql, readSearchDocuments, rebuildSearchDocs, searchRecordOf } from './search-docs.js';
export { UUID_PATTERN } from './stable-ids.js';
export { graphStatements } from './statements.js';
export type {
  ChunkRow,
  ChunkVectorRow,
  EntityRow,
  FactRow,
  GraphReader,
  GraphState,
  PlannedRead,
  QaRow,
  RelationshipRow,
  SourceRow,
  RowsSince,
  UnchangedChunkRow,
  UnchangedEntityRow,
  GoneFact,
} from './types.js';
export { tombstoneItems, tombstonedWithContribution, type TombstoneOutcome, type TombstonedRow } from './tombstone.js';
export { withWriteTurn } from './write-turn.js';
