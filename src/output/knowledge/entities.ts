import { sameId, type Db } from '../../platform/storage/index.js';

/**
 * Entity reads over a website's graph database by stable id (docs/contract.md#management-api,
 * docs/knowledge.md "Entity reads"): what the next publish would export of an entity, its facts
 * and its neighbours, with the export rules applied (docs/contract.md#export-rules).
 */

export interface EntityView {
  id: string;
  type: string;
  name: string;
  language: string;
  importance: number;
  source_url?: string;
}

/** Where a fact candidate came from: how it was extracted, how sure, from which source and when. */
export interface CandidateView {
  value: unknown;
  display?: string;
  language: string;
  confidence: number;
  provenance_method: string;
  source_id?: string;
  source_url?: string;
  last_seen_at: string;
  status: 'superseded' | 'merged';
}

export interface FactView {
  id: string;
  subject: string;
  predicate: string;
  value: unknown;
  display?: string;
  unit?: string;
  currency?: string;
  language: string;
  confidence: number;
  provenance_method: string;
  importance: number;
  freshness: string;
  valid_from?: string;
  valid_until?: string;
  source_id?: string;
  source_url?: string;
  /** With ?include=candidates: the other candidates of the fact, in survivor order. */
  candidates?: CandidateView[];
}

export interface RelatedView {
  entity: EntityView;
  /** The path from the asked entity: one hop at depth 1, two at depth 2. */
  via: Array<{ rel_id: string; type: string; direction: 'out' | 'in' }>;
}

interface EntitySql {
  id: string;
  type: string;
  name: string;
  language: string;
  importance: number;
  source_url: string | null;
}
interface FactSql {
  fact_id: string;
  subject: string;
  predicate: string;
  value: string;
  display: string | null;
  unit: string | null;
  currency: string | null;
  language: string;
  confidence: number;
  provenance_method: string;
  importance: number;
  freshness: string;
  valid_from: string | null;
  valid_until: string | null;
  source_id: string | null;
  source_url: string | null;
  last_seen_at: string;
  status: 'active' | 'superseded' | 'merged';
}
interface EdgeSql extends EntitySql {
  rel_id: string;
  rel_type: string;
  direction: 'out' | 'in';
}

const NOT_HIDDEN = (column: string) =>
  `NOT EXISTS (SELECT 1 FROM editorial ed WHERE ed.record_id = ${column} AND ed.hidden = 1)`;

function toEntity(row: EntitySql): EntityView {
  const view: EntityView = {
    id: row.id,
    type: row.type,
    name: row.name,
    language: row.language,
    importance: row.importance,
  };
  if (row.source_url) view.source_url = row.source_url;
  return view;
}

/** The entity as the next publish would export it; undefined when it does not exist or is hidden. */
export function readExportedEntity(db: Db, entityId: string): EntityView | undefined {
  const row = db
    .prepare(
      `SELECT id, type, name, language, importance, source_url FROM entities e WHERE id = ? AND ${NOT_HIDDEN('e.id')}`,
    )
    .get(entityId) as EntitySql | undefined;
  return row ? toEntity(row) : undefined;
}

/**
 * The entity's exported facts, most important first, then predicate, language and id: each
 * fact's survivor, hidden facts left out. With `candidates`, each fact lists its superseded
 * candidates with their provenance (an editor's view of why the survivor won).
 */
export function readEntityFacts(db: Db, entityId: string, options: { candidates: boolean }): FactView[] {
  // The surviving candidates by subject (search_facts_by_subject, graph migrations 0006 and 0022), then each fact's candidates.
  const rows = db
    .prepare(
      `SELECT f.* FROM (SELECT ? AS id) p CROSS JOIN fact_candidates active ON ${sameId('active.subject_entity_id', 'p.id')}
      JOIN fact_candidates f ON ${sameId('f.fact_id', 'active.fact_id')}
    WHERE active.status = 'active' AND ${NOT_HIDDEN('active.fact_id')} ${options.candidates ? '' : "AND f.status = 'active'"}
    ORDER BY f.fact_id, f.rank, f.item_key, f.ordinal`,
    )
    .all(entityId) as FactSql[];
  const facts: FactView[] = [];
  for (const row of rows) {
    if (row.status === 'active') {
      facts.push(toFact(row, options.candidates));
      continue;
    }
    const fact = facts[facts.length - 1];
    if (fact?.id === row.fact_id) fact.candidates!.push(toCandidate(row));
  }
  return facts.sort(
    (a, b) =>
      b.importance - a.importance ||
      compare(a.predicate, b.predicate) ||
      compare(a.language, b.language) ||
      compare(a.id, b.id),
  );
}

function toFact(row: FactSql, withCandidates: boolean): FactView {
  const fact: FactView = {
    id: row.fact_id,
    subject: row.subject,
    predicate: row.predicate,
    value: JSON.parse(row.value),
    language: row.language,
    confidence: row.confidence,
    provenance_method: row.provenance_method,
    importance: row.importance,
    freshness: row.freshness,
  };
  if (row.display !== null) fact.display = row.display;
  if (row.unit !== null) fact.unit = row.unit;
  if (row.currency !== null) fact.currency = row.currency;
  if (row.valid_from !== null) fact.valid_from = row.valid_from;
  if (row.valid_until !== null) fact.valid_until = row.valid_until;
  if (row.source_id !== null) fact.source_id = row.source_id;
  if (row.source_url !== null) fact.source_url = row.source_url;
  if (withCandidates) fact.candidates = [];
  return fact;
}

function toCandidate(row: FactSql): CandidateView {
  const candidate: CandidateView = {
    value: JSON.parse(row.value),
    language: row.language,
    confidence: row.confidence,
    provenance_method: row.provenance_method,
    last_seen_at: row.last_seen_at,
    status: row.status === 'merged' ? 'merged' : 'superseded',
  };
  if (row.display !== null) candidate.display = row.display;
  if (row.source_id !== null) candidate.source_id = row.source_id;
  if (row.source_url !== null) candidate.source_url = row.source_url;
  return candidate;
}

// Exported edges only (export rule 3): resolved, and neither end hidden (the asked entity is
// checked by the caller). The most important neighbours first, then by id, then relationship id.
const EDGES_SQL = `SELECT x.rel_id, x.rel_type, x.direction, e.id, e.type, e.name, e.language, e.importance, e.source_url FROM (
    SELECT r.id AS rel_id, r.type AS rel_type, 'out' AS direction, r.to_entity_id AS other FROM relationships r WHERE ${sameId('r.from_entity_id', '@id')} AND r.resolution_status = 'resolved'
    UNION ALL
    SELECT r.id, r.type, 'in', r.from_entity_id FROM relationships r WHERE ${sameId('r.to_ref', '@id')} AND r.resolution_status = 'resolved'
  ) x JOIN entities e ON e.id = x.other
  WHERE x.other != @id AND ${NOT_HIDDEN('x.other')}
  ORDER BY e.importance DESC, e.id, x.rel_id`;

/**
 * Entities reachable from `entityId` through exported relationships within `depth` hops, each
 * once, by its shortest path (the first in EDGES_SQL order): every depth-1 neighbour before any
 * depth-2 one. At most `limit`; `truncated` says more exist.
 */
export function readRelated(
  db: Db,
  entityId: string,
  depth: 1 | 2,
  limit: number,
): { related: RelatedView[]; truncated: boolean } {
  const edges = db.prepare(EDGES_SQL);
  const seen = new Set([entityId]);
  const related: RelatedView[] = [];
  let frontier: RelatedView[] = [{ entity: { id: entityId } as EntityView, via: [] }];
  for (let level = 1; level <= depth; level++) {
    const next: RelatedView[] = [];
    for (const from of frontier) {
      for (const row of edges.iterate({ id: from.entity.id }) as IterableIterator<EdgeSql>) {
        if (seen.has(row.id)) continue;
        if (related.length === limit) return { related, truncated: true };
        seen.add(row.id);
        const view: RelatedView = {
          entity: toEntity(row),
          via: [...from.via, { rel_id: row.rel_id, type: row.rel_type, direction: row.direction }],
        };
        related.push(view);
        next.push(view);
      }
    }
    frontier = next;
  }
  return { related, truncated: false };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
