import type { Db } from '../../platform/storage/index.js';
import { hitsOf, matchKnowledge, type RankedHit, type SearchKind } from './search.js';
import { searchVectors } from './vector-search.js';

/** How a search ranks (docs/knowledge.md "Modes"). */
export const SEARCH_MODES = ['keyword', 'vector', 'hybrid'] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];

/** Reciprocal rank fusion's constant: a hit ranked r in a list adds 1 / (RRF_K + r). */
export const RRF_K = 60;
/**
 * Keyword hits hybrid mode fuses: a fixed depth, so every page fuses the same lists and paging
 * neither repeats nor skips a hit; at most FUSION_DEPTH + VECTOR_FUSION_DEPTH hybrid hits in all.
 */
export const FUSION_DEPTH = 100;
/** Vector hits hybrid mode fuses: the exact pass costs per candidate, the keyword list hardly. */
export const VECTOR_FUSION_DEPTH = 50;
/** Vector mode pages this deep at most. */
export const VECTOR_DEPTH = 1_000;

export interface FusedRequest {
  mode: 'vector' | 'hybrid';
  query: string;
  vector: Float32Array;
  modelKey: string;
  kind?: SearchKind;
  /** Hits to skip (the cursor's) and hits to answer. */
  offset: number;
  limit: number;
}

/**
 * Vector or hybrid hits, best first, each positioned by its place in the whole list (the next
 * page's offset). Vector mode: chunks by cosine similarity (score 1 - cosine distance). Hybrid:
 * reciprocal rank fusion of the keyword and the vector list (score the fused sum); a hit both
 * lists hold outranks one only either holds at a similar rank. Ties: newer document first.
 */
export function fusedSearch(db: Db, request: FusedRequest): RankedHit[] {
  const { offset, limit } = request;
  const chunksToo = request.kind === undefined || request.kind === 'chunk';
  if (request.mode === 'vector') {
    const depth = Math.min(VECTOR_DEPTH, offset + limit);
    if (!chunksToo || offset >= depth) return [];
    const rows = searchVectors(db, request.modelKey, request.vector, depth)
      .slice(offset)
      .map((hit, i) => ({ rowid: hit.rowid, rank: offset + i + 1, score: round(1 - hit.distance) }));
    return hitsOf(db, undefined, rows);
  }
  const keyword = matchKnowledge(db, {
    query: request.query,
    limit: FUSION_DEPTH,
    ...(request.kind ? { kind: request.kind } : {}),
  });
  const scores = new Map<number, number>();
  const add = (rowid: number, rank: number) => scores.set(rowid, (scores.get(rowid) ?? 0) + 1 / (RRF_K + rank));
  keyword?.rows.forEach((row, i) => add(row.rowid, i + 1));
  if (chunksToo)
    searchVectors(db, request.modelKey, request.vector, VECTOR_FUSION_DEPTH).forEach((hit, i) => add(hit.rowid, i + 1));
  const fused = [...scores]
    .sort((a, b) => b[1] - a[1] || b[0] - a[0])
    .slice(offset, offset + limit)
    .map(([rowid, score], i) => ({ rowid, rank: offset + i + 1, score: round(score) }));
  return hitsOf(db, keyword?.match, fused);
}

const round = (score: number) => Number(score.toPrecision(6));
