import type { Migration } from '../../sqlite.js';
import { migration as rawItems } from './0001-raw-items.js';
import { migration as knowledgeRecords } from './0002-knowledge-records.js';
import { migration as knowledgeSearch } from './0003-knowledge-search.js';
import { migration as searchDocRanges } from './0004-search-doc-ranges.js';
import { migration as entityContributorOrder } from './0005-entity-contributor-order.js';
import { migration as searchRecordRowids } from './0006-search-record-rowids.js';
import { migration as searchHashSize } from './0007-search-hash-size.js';
import { migration as factsInReadOrder } from './0008-facts-in-read-order.js';
import { migration as searchPrefixThree } from './0009-search-prefix-three.js';
import { migration as factLanguageIndex } from './0010-fact-language-index.js';
import { migration as chunkVectors } from './0011-chunk-vectors.js';
import { migration as sourceTrustIndex } from './0012-source-trust-index.js';
import { migration as fewerHashedIndexes } from './0013-fewer-hashed-indexes.js';
import { migration as acceptedSeq } from './0014-accepted-seq.js';
import { migration as compileTracking } from './0015-compile-tracking.js';
import { migration as entityTracking } from './0016-entity-tracking.js';
import { migration as factTracking } from './0017-fact-tracking.js';
import { migration as recordsGone } from './0018-records-gone.js';
import { migration as relationshipAndQaTracking } from './0019-relationship-and-qa-tracking.js';
import { migration as factSequenceIndex } from './0020-fact-sequence-index.js';
import { migration as sourceTracking } from './0021-source-tracking.js';
import { migration as shortFactKeys } from './0022-short-fact-keys.js';
import { migration as shortEntityKeys } from './0023-short-entity-keys.js';

/**
 * The schema of graphs/<websiteId>.sqlite, oldest first: one migration per file, `NNNN-name.ts`,
 * whose number is its `version` and whose name is its `name` in kebab-case. Version 1 holds what
 * ingestion accepts (raw_items); later versions hold the knowledge records derived from it.
 *
 * To add one: take the next number, write one new file exporting `migration`, add its import and
 * one line to the list below, then record a database made at that version with
 * `npm run build && node scripts/make-migration-fixture.mjs graph <version>` and commit
 * test/data/graph-v<version>.sqlite (test/platform/storage/migrations.app.test.ts). Forward-only: a
 * released file is never edited.
 */
export const GRAPH_MIGRATIONS: readonly Migration[] = [
  rawItems,
  knowledgeRecords,
  knowledgeSearch,
  searchDocRanges,
  entityContributorOrder,
  searchRecordRowids,
  searchHashSize,
  factsInReadOrder,
  searchPrefixThree,
  factLanguageIndex,
  chunkVectors,
  sourceTrustIndex,
  fewerHashedIndexes,
  acceptedSeq,
  compileTracking,
  entityTracking,
  factTracking,
  recordsGone,
  relationshipAndQaTracking,
  factSequenceIndex,
  sourceTracking,
  shortFactKeys,
  shortEntityKeys,
];
