import type { Db } from '../../platform/storage/index.js';
import { trustScore, type WebsiteInfo } from '../../control/records/index.js';
import type { ItemContribution } from '../extract/index.js';
import { BatchIds, contributionRows, FactCandidate, type ContributionRows } from './contribution-rows.js';
import { emptyTouched, rankFactCandidates, recomputeTouched, type TouchedKeys } from './recompute.js';
import { mergeSearchTouched, refreshSearchDocs, type SearchTouched } from './search-docs.js';
import { graphStatements, insertRows, INSERTS } from './statements.js';

export { entityIdOf, factIdOf, chunkIdOf, sourceIdOf } from './contribution-rows.js';

/**
 * How long records_gone keeps a deleted row (graph migration 0018): a compile whose state is
 * older than that (a live version not published again for 30 days) reads every fact once.
 */
export const RECORDS_GONE_KEPT_MS = 30 * 24 * 3600 * 1000;

/**
 * Deletes every row the items contributed and records the natural keys they named, after raising
 * the graph's write sequence for what the caller writes next. Returns the item keys that had
 * contributed (every row of an item is written with its item_contributions row: an item without
 * one has nothing to delete).
 */
export function deleteItemsRows(db: Db, itemKeys: readonly string[], touched: TouchedKeys): Set<string> {
  const s = graphStatements(db);
  // Every write of items (a batch, a removal) starts here: the rows written after, inserted or
  // derived again, carry a sequence above what any compile read (a compile copies older ones).
  const now = Date.now();
  s.nextWriteSeq.run(now);
  // What was deleted longer ago than any compile state worth keeping is forgotten; a state older than the floor reads every fact.
  const floor = now - RECORDS_GONE_KEPT_MS;
  if (s.pruneRecordsGone.run(floor).changes > 0) s.raiseGoneFloor.run(floor);
  const existing = new Set(s.existingItems.all(JSON.stringify(itemKeys)) as string[]);
  if (existing.size === 0) return existing;
  const keys = JSON.stringify([...existing].sort());
  const vacate = (ids: string[], all: Set<string>, vacated: Set<string>) => {
    for (const id of ids) {
      all.add(id);
      vacated.add(id);
    }
  };
  vacate(s.itemsSourceIds.all(keys) as string[], touched.sources, touched.vacated.sources);
  vacate(s.itemsEntityIds.all(keys) as string[], touched.entities, touched.vacated.entities);
  vacate(s.itemsRelIds.all(keys) as string[], touched.relationships, touched.vacated.relationships);
  for (const id of s.itemsFactIds.all(keys) as string[]) touched.facts.add(id);
  for (const id of s.itemsChunkIds.all(keys) as string[]) touched.chunks.add(id);
  for (const stmt of [
    s.deleteEntityContributors,
    s.deleteRelContributors,
    s.deleteFacts,
    s.deleteChunks,
    s.deleteQa,
    s.deleteQaFacts,
    s.deleteItems,
  ])
    stmt.run(keys);
  return existing;
}

/** Inserts the items' rows (old rows already deleted), fact candidates already ranked. */
function insertContributionRows(db: Db, items: readonly ContributionRows[], touched: TouchedKeys): void {
  for (const r of items) {
    touched.sources.add(r.sourceId);
    // A row's record id is its first column.
    for (const row of r.entityContributors) touched.entities.add(row[0] as string);
    for (const row of r.relContributors) touched.relationships.add(row[0] as string);
    for (const row of r.facts) touched.facts.add(row[0] as string);
    for (const row of r.chunks) touched.chunks.add(row[0] as string);
    if (r.qa.length > 0) touched.qaItems.add(r.itemKey);
  }
  // Ranking sets each incoming fact row's status and rank.
  rankFactCandidates(
    db,
    touched.facts,
    items.flatMap((r) => r.facts.map((row) => FactCandidate.ofRow(row))),
  );
  insertRows(
    db,
    INSERTS.items,
    items.map((r) => r.item),
  );
  insertRows(
    db,
    INSERTS.entityContributors,
    items.flatMap((r) => r.entityContributors),
  );
  insertRows(
    db,
    INSERTS.relContributors,
    items.flatMap((r) => r.relContributors),
  );
  insertRows(
    db,
    INSERTS.facts,
    items.flatMap((r) => r.facts),
  );
  insertRows(
    db,
    INSERTS.chunks,
    items.flatMap((r) => r.chunks),
  );
  insertRows(
    db,
    INSERTS.qa,
    items.flatMap((r) => r.qa),
  );
  insertRows(
    db,
    INSERTS.qaFacts,
    items.flatMap((r) => r.qaFacts),
  );
}

/**
 * Replaces what each item (contribution.itemKey) contributed to the website's graph with its
 * contribution, in one transaction (a savepoint when called inside one), and re-derives exactly
 * the records whose natural keys the old or the new contributions named: entities,
 * relationships (re-resolved), fact survivors, Q&A staleness, sources and their search
 * documents. Editorial state is never touched. The result is the same as applying the
 * contributions one by one, in order; the work is set-based over the batch: a few statements
 * per table for all the items (docs/graph.md "Throughput"). With `searchBatch`, the records to
 * re-index are added to it instead, and the caller refreshes them (refreshSearchDocs) before its
 * transaction commits.
 */
export function applyContributions(
  db: Db,
  site: WebsiteInfo,
  contributions: readonly ItemContribution[],
  searchBatch?: SearchTouched,
): void {
  const ids = new BatchIds(site.websiteId);
  applyContributionRows(
    db,
    site,
    contributions.map((c) => contributionRows(site, c, ids)),
    searchBatch,
  );
}

/**
 * applyContributions on contributions already turned into rows (contributionRows, in the thread that extracted them).
 */
export function applyContributionRows(
  db: Db,
  site: WebsiteInfo,
  rows: readonly ContributionRows[],
  searchBatch?: SearchTouched,
): void {
  if (rows.length === 0) return;
  db.transaction(() => {
    // An item given twice: its later contribution replaces the earlier one, as if applied one after the other.
    for (const run of runsOfDistinctItems(rows)) {
      const touched = emptyTouched();
      deleteItemsRows(
        db,
        run.map((r) => r.itemKey),
        touched,
      );
      insertContributionRows(db, run, touched);
      recomputeTouched(db, touched, trustScore(site.verification.method, site.verification.state));
      if (searchBatch) mergeSearchTouched(searchBatch, touched);
      else refreshSearchDocs(db, touched);
    }
  })();
}

/** Replaces what one item contributed (applyContributions with one item). */
export function applyContribution(
  db: Db,
  site: WebsiteInfo,
  contribution: ItemContribution,
  searchBatch?: SearchTouched,
): void {
  applyContributions(db, site, [contribution], searchBatch);
}

/** Splits rows into consecutive runs in which no item key repeats. */
function runsOfDistinctItems(rows: readonly ContributionRows[]): ContributionRows[][] {
  const runs: ContributionRows[][] = [];
  let run: ContributionRows[] = [];
  let keys = new Set<string>();
  for (const r of rows) {
    if (keys.has(r.itemKey)) {
      runs.push(run);
      run = [];
      keys = new Set();
    }
    run.push(r);
    keys.add(r.itemKey);
  }
  if (run.length > 0) runs.push(run);
  return runs;
}

/**
 * Sets every source's trust to the website's current verification trust (it changes with
 * verification). Two ranges of sources_by_trust (graph migration 0012), not `trust != ?`, which
 * no index serves: every content.ingest batch runs this, and a scan grew with the website. The
 * rows it changes carry a write sequence raised for them (migration 0021): a compile copies older ones.
 */
export function refreshSourceTrust(db: Db, site: WebsiteInfo): number {
  const trust = trustScore(site.verification.method, site.verification.state);
  const s = graphStatements(db);
  if (s.otherTrust.get(trust, trust) === 0) return 0;
  s.nextWriteSeq.run(Date.now());
  return s.setTrust.run(trust, trust, trust).changes;
}
