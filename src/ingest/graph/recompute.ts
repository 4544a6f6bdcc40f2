import type { Db } from '../../platform/storage/index.js';
import { FactCandidate } from './contribution-rows.js';
import { graphStatements } from './statements.js';

/**
 * Natural keys one change touched. After items' rows are replaced or removed, only these are
 * re-derived from the contributor tables, so a change costs in proportion to the items, not the site.
 */
export interface TouchedKeys {
  entities: Set<string>;
  relationships: Set<string>;
  facts: Set<string>;
  sources: Set<string>;
  /** Items whose new Q&A rows must be checked for staleness besides those citing touched facts. */
  qaItems: Set<string>;
  /** Chunks removed or written (their search documents are refreshed, src/ingest/graph/search-docs.ts). */
  chunks: Set<string>;
  /**
   * The sources, entities and relationships among these that lost a contributor row: only they
   * can have none left and disappear. Empty when the items had not contributed before (a first
   * ingestion), which then skips the deletes.
   */
  vacated: { sources: Set<string>; entities: Set<string>; relationships: Set<string> };
}

export function emptyTouched(): TouchedKeys {
  return {
    entities: new Set(),
    relationships: new Set(),
    facts: new Set(),
    sources: new Set(),
    qaItems: new Set(),
    chunks: new Set(),
    vacated: { sources: new Set(), entities: new Set(), relationships: new Set() },
  };
}

const json = (ids: Iterable<string>): string => JSON.stringify([...ids]);

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

interface CandidateRankRow {
  rowid: number;
  fact_id: string;
  item_key: string;
  ordinal: number;
  provenance_rank: number;
  confidence: number;
  last_seen_at: string;
  status: string;
  rank: number;
}

/**
 * The survivor order of a fact id's candidates (docs/contract.md#fact-rules): pinned first, then
 * provenance, then confidence, then newest source (last_seen_at), then item key and position as a
 * stable tiebreak.
 */
function bySurvivorOrder(a: FactCandidate, b: FactCandidate): number {
  return (
    a.pinned - b.pinned ||
    a.provenanceRank - b.provenanceRank ||
    b.confidence - a.confidence ||
    compareText(b.lastSeenAt, a.lastSeenAt) ||
    compareText(a.itemKey, b.itemKey) ||
    a.ordinal - b.ordinal
  );
}

/**
 * Chooses the survivor of each fact id: exactly one candidate is 'active', the others stay in the
 * graph as 'superseded', each with its rank in the survivor order. `incoming` are candidates about
 * to be inserted: they are ranked with the stored ones and get their place (FactCandidate.place), so they
 * are inserted ranked rather than updated afterwards. Stored candidates whose
 * place changed are updated.
 */
export function rankFactCandidates(db: Db, factIds: Iterable<string>, incoming: readonly FactCandidate[] = []): void {
  const s = graphStatements(db);
  const ids = JSON.stringify([...factIds]);
  if (ids === '[]') return;
  const pins = new Map(
    (s.factPins.all(ids) as Array<{ record_id: string; pinned_item_key: string | null }>).map((r) => [
      r.record_id,
      r.pinned_item_key,
    ]),
  );
  const groups = new Map<string, FactCandidate[]>();
  const add = (candidate: FactCandidate) => {
    const pin = pins.get(candidate.factId);
    if (pin !== undefined && (pin === null || pin === candidate.itemKey)) candidate.pinned = 0;
    const group = groups.get(candidate.factId);
    if (group) group.push(candidate);
    else groups.set(candidate.factId, [candidate]);
  };
  for (const row of s.factCandidates.all(ids) as CandidateRankRow[]) {
    add(
      new FactCandidate(
        row.fact_id,
        row.item_key,
        row.ordinal,
        row.provenance_rank,
        row.confidence,
        row.last_seen_at,
        undefined,
        { rowid: row.rowid, status: row.status, rank: row.rank },
      ),
    );
  }
  for (const candidate of incoming) add(candidate);
  for (const group of groups.values()) {
    if (group.length > 1) group.sort(bySurvivorOrder);
    for (let rank = 0; rank < group.length; rank++) {
      const c = group[rank]!;
      const status = rank === 0 ? 'active' : 'superseded';
      if (c.row) c.place(status, rank);
      else if (c.stored!.status !== status || c.stored!.rank !== rank) s.setFactRank.run(status, rank, c.stored!.rowid);
    }
  }
}

/** Re-chooses the survivor of one fact id (an editorial pin changed). */
export function recomputeFactSurvivor(db: Db, factId: string): void {
  rankFactCandidates(db, [factId]);
}

/**
 * A Q&A is stale when a fact behind it no longer has the value the answer was made from (its
 * survivor changed or it disappeared) or is hidden: a stale answer would contradict or leak
 * what the node publishes. Re-extracting the item regenerates it. Checks the Q&A citing `factIds`
 * and those made by `itemKeys`.
 */
export function refreshQaStaleness(db: Db, factIds: Iterable<string>, itemKeys: Iterable<string> = []): void {
  const facts = json(factIds);
  const items = json(itemKeys);
  if (facts === '[]' && items === '[]') return;
  graphStatements(db).refreshQaStale.run(facts, items);
}

/** Re-derives entities from their contributors; returns the ids that appeared or disappeared. */
function recomputeEntities(db: Db, ids: string, vacated: Set<string>): string[] {
  const s = graphStatements(db);
  const before = new Set(s.existingEntities.all(ids) as string[]);
  const flipped = vacated.size > 0 ? (s.deleteEntities.all(json(vacated)) as string[]) : [];
  for (const id of s.upsertEntities.all(ids) as string[]) if (!before.has(id)) flipped.push(id);
  return flipped;
}

/**
 * Re-derives every record the touched natural keys name, in dependency order, one statement per
 * kind of record for the whole set: sources, entities, relationships (re-resolved where an
 * entity appeared or disappeared), Q&A staleness. Fact survivors are chosen by the caller
 * (rankFactCandidates), before this runs.
 */
export function recomputeTouched(db: Db, touched: TouchedKeys, trust: number): void {
  const s = graphStatements(db);
  const { vacated } = touched;
  if (vacated.sources.size > 0) s.deleteSources.run(json(vacated.sources));
  if (touched.sources.size > 0) s.upsertSources.run(trust, json(touched.sources));
  const flipped = touched.entities.size > 0 ? recomputeEntities(db, json(touched.entities), vacated.entities) : [];
  if (vacated.relationships.size > 0) s.deleteRels.run(json(vacated.relationships));
  if (touched.relationships.size > 0) s.upsertRels.run(json(touched.relationships));
  if (flipped.length > 0) {
    const ids = json(flipped);
    s.reresolveRels.run(ids, ids);
  }
  refreshQaStaleness(db, touched.facts, touched.qaItems);
}
