import type { Db } from '../storage/sqlite.js';
import { graphStatements } from './statements.js';

/**
 * Natural keys one change touched. After an item's rows are replaced or removed, only these are
 * re-derived from the contributor tables, so a change costs in proportion to the item, not the site.
 */
export interface TouchedKeys {
  entities: Set<string>;
  relationships: Set<string>;
  facts: Set<string>;
  sources: Set<string>;
  /** Q&A rows (`${qaId}\u001f${itemKey}`) whose staleness must be re-checked besides those of touched facts. */
  qa: Set<string>;
  /** Chunks removed or written (their search documents are refreshed, src/graph/search-docs.ts). */
  chunks: Set<string>;
}

export function emptyTouched(): TouchedKeys {
  return { entities: new Set(), relationships: new Set(), facts: new Set(), sources: new Set(), qa: new Set(), chunks: new Set() };
}

interface EntityContributorRow {
  entity_id: string; item_key: string; type: string; canonical_key: string; name: string; language: string; confidence: number;
  provenance_method: string; importance: number; attributes: string; source_id: string | null; source_url: string | null;
}

interface RelContributorRow {
  rel_id: string; type: string; from_entity_id: string; to_ref: string; to_type: string; to_canonical_key: string; language: string;
  confidence: number; provenance_method: string; source_id: string | null; source_url: string | null;
}

interface ItemSourceRow {
  source_id: string; url: string; canonical_url: string | null; title: string | null; content_type: string; last_seen_at: string; checksum: string; language: string;
}

interface CandidateRankRow {
  item_key: string; ordinal: number; provenance_rank: number; confidence: number; last_seen_at: string; status: string; rank: number;
  pinned: number | null; pinned_item_key: string | null;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Re-derives entity rows from their contributors; returns the ids that appeared or disappeared. */
function recomputeEntities(db: Db, ids: Iterable<string>): string[] {
  const s = graphStatements(db);
  const flipped: string[] = [];
  for (const id of [...ids].sort()) {
    const existed = s.entityExists.get(id) !== undefined;
    const best = s.bestEntity.get(id) as EntityContributorRow | undefined;
    if (!best) {
      if (existed) (s.deleteEntity.run(id), flipped.push(id));
      continue;
    }
    const importance = (s.maxImportance.get(id) as { importance: number }).importance;
    s.upsertEntity.run(id, best.type, best.canonical_key, best.name, best.language, best.confidence, best.provenance_method, best.source_id, best.source_url, importance, best.attributes, best.item_key);
    if (!existed) flipped.push(id);
  }
  return flipped;
}

function recomputeRelationships(db: Db, ids: Iterable<string>): void {
  const s = graphStatements(db);
  for (const id of [...ids].sort()) {
    const best = s.bestRel.get(id) as RelContributorRow | undefined;
    if (!best) {
      s.deleteRel.run(id);
      continue;
    }
    const resolved = s.entityExists.get(best.to_ref) !== undefined && s.entityExists.get(best.from_entity_id) !== undefined;
    s.upsertRel.run(id, best.type, best.from_entity_id, best.to_ref, best.to_type, best.to_canonical_key, resolved ? best.to_ref : null, resolved ? 'resolved' : 'dangling',
      best.language, best.confidence, best.provenance_method, best.source_id, best.source_url);
  }
}

/**
 * Chooses the survivor of one fact id (docs/contract.md#fact-rules): pinned first, then provenance, then
 * confidence, then newest source (last_seen_at), then item key and position as a stable tiebreak.
 * Every other candidate stays in the graph as 'superseded'.
 */
export function recomputeFactSurvivor(db: Db, factId: string): void {
  const s = graphStatements(db);
  const rows = s.factCandidates.all(factId) as CandidateRankRow[];
  if (rows.length === 0) return;
  const pinned = (r: CandidateRankRow): number => (r.pinned === 1 && (r.pinned_item_key === null || r.pinned_item_key === r.item_key) ? 0 : 1);
  rows.sort((a, b) => pinned(a) - pinned(b) || a.provenance_rank - b.provenance_rank || b.confidence - a.confidence
    || compareText(b.last_seen_at, a.last_seen_at) || compareText(a.item_key, b.item_key) || a.ordinal - b.ordinal);
  rows.forEach((row, rank) => {
    const status = rank === 0 ? 'active' : 'superseded';
    if (row.status !== status || row.rank !== rank) s.setFactRank.run(status, rank, factId, row.item_key, row.ordinal);
  });
}

function recomputeSources(db: Db, ids: Iterable<string>, trust: number): void {
  const s = graphStatements(db);
  for (const id of [...ids].sort()) {
    const best = s.bestSource.get(id) as ItemSourceRow | undefined;
    if (!best) s.deleteSource.run(id);
    else s.upsertSource.run(id, best.url, best.canonical_url, best.title, best.content_type, best.last_seen_at, best.checksum, best.language, trust);
  }
}

/**
 * A Q&A is stale when a fact behind it no longer has the value the answer was made from (its
 * survivor changed or it disappeared) or is hidden: a stale answer would contradict or leak
 * what the node publishes. Re-extracting the item regenerates it.
 */
export function refreshQaStaleness(db: Db, qaId: string, itemKey: string): void {
  const s = graphStatements(db);
  const row = s.qaValues.get(qaId, itemKey) as { fact_values: string; stale: number } | undefined;
  if (!row) return;
  const made = JSON.parse(row.fact_values) as Record<string, string | null>;
  let stale = 0;
  for (const factId of Object.keys(made)) {
    const survivor = s.survivor.get(factId) as { value: string } | undefined;
    const editorial = s.editorialOf.get(factId) as { hidden: number } | undefined;
    if (survivor === undefined || survivor.value !== made[factId] || editorial?.hidden === 1) {
      stale = 1;
      break;
    }
  }
  if (stale !== row.stale) s.setQaStale.run(stale, qaId, itemKey);
}

/** Re-derives every record the touched natural keys name, in dependency order. */
export function recomputeTouched(db: Db, touched: TouchedKeys, trust: number): void {
  const s = graphStatements(db);
  recomputeSources(db, touched.sources, trust);
  const flipped = recomputeEntities(db, touched.entities);
  recomputeRelationships(db, touched.relationships);
  for (const id of flipped) s.reresolveRels.run({ id });
  const qa = new Set(touched.qa);
  const facts = [...touched.facts].sort();
  for (const factId of facts) recomputeFactSurvivor(db, factId);
  if (facts.length > 0) {
    for (const r of s.qaByFacts.all(JSON.stringify(facts)) as Array<{ qa_id: string; item_key: string }>) qa.add(r.qa_id + '\u001f' + r.item_key);
  }
  for (const key of [...qa].sort()) {
    const cut = key.indexOf('\u001f');
    refreshQaStaleness(db, key.slice(0, cut), key.slice(cut + 1));
  }
}
