import { createHash } from 'node:crypto';
import type { Db } from '../storage/sqlite.js';
import { buildMatchExpression } from './search-query.js';

/**
 * Knowledge search over a graph database's FTS5 index (migration 0003, docs/knowledge.md): the
 * one ranking the management API runs over the website's graph and the MCP server runs over the
 * published node loaded into an in-memory graph (search-index.ts).
 */

export const SEARCH_KINDS = ['entity', 'fact', 'chunk'] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];

/**
 * BM25 weight of each search_fts column, in column order: name (entity name, fact predicate),
 * context (fact subject, chunk headings), value (fact value, entity type), body (chunk text).
 * Names over values over chunk text.
 */
export const COLUMN_WEIGHTS = { name: 10, context: 2, value: 5, body: 1 } as const;
/** Tokens of context around the matched terms in a snippet. */
const SNIPPET_TOKENS = 16;
/** Characters of a chunk's first line used as its title. */
const CHUNK_TITLE_CHARS = 80;

export interface SearchHit {
  kind: SearchKind;
  /** The record's stable id (entity_*, fact_*, chunk_*). */
  id: string;
  /** Relevance (BM25, higher is better), 6 significant digits. */
  score: number;
  language: string;
  /** Entity name, "subject: predicate" of a fact, or the first words of a chunk. */
  title: string;
  /** The best-matching field around the matched terms, HTML-escaped, each matched term in <mark>...</mark>. */
  snippet: string;
  /** The fact's subject entity when it is exported. */
  entity_id?: string;
  source_url?: string;
}

/** Where the next page starts: the last hit's sort key, tied to the query it came from. */
export interface SearchPosition {
  rank: number;
  kindOrder: number;
  id: string;
}

export interface SearchRequest {
  query: string;
  kind?: SearchKind;
  limit: number;
  after?: SearchPosition;
}

export interface RankedHit extends SearchHit {
  position: SearchPosition;
}

interface RankedRow { docId: number; kind: SearchKind; recordId: string; rank: number; kindOrder: number }

const WEIGHTS = Object.values(COLUMN_WEIGHTS).map((w) => w.toFixed(1)).join(', ');

// Export rules at query time (docs/contract.md#export-rules): the index holds only surviving
// facts; a hidden entity, a hidden fact and a fact of a hidden entity are left out. Chunks are
// exported whatever their editorial row says, as the compiler does.
const RANKED_SQL = `SELECT * FROM (
    SELECT d.doc_id AS docId, d.kind AS kind, d.record_id AS recordId, bm25(search_fts, ${WEIGHTS}) AS rank,
      CASE d.kind WHEN 'entity' THEN 0 WHEN 'fact' THEN 1 ELSE 2 END AS kindOrder
    FROM search_fts JOIN search_docs d ON d.doc_id = search_fts.rowid
    WHERE search_fts MATCH @match AND (@kind IS NULL OR d.kind = @kind)
      AND (d.kind = 'chunk' OR NOT EXISTS (SELECT 1 FROM editorial e WHERE e.hidden = 1 AND e.record_id IN (d.record_id, d.entity_id)))
  )
  WHERE @afterRank IS NULL OR rank > @afterRank OR (rank = @afterRank AND (kindOrder > @afterKind OR (kindOrder = @afterKind AND recordId > @afterId)))
  ORDER BY rank, kindOrder, recordId
  LIMIT @limit`;

// The CAST matters: better-sqlite3 binds a JS number as REAL, and FTS5 then drops the rowid
// constraint, answering the first match's snippet for every hit.
const SNIPPET_SQL = `SELECT snippet(search_fts, -1, char(2), char(3), '…', ${SNIPPET_TOKENS}) FROM search_fts WHERE search_fts MATCH @match AND rowid = CAST(@docId AS INTEGER)`;

const DETAIL_SQL: Record<SearchKind, string> = {
  entity: 'SELECT name AS title, language, source_url AS sourceUrl FROM entities WHERE id = ?',
  fact: `SELECT f.subject || ': ' || replace(f.predicate, '_', ' ') AS title, f.language, f.source_url AS sourceUrl,
      CASE WHEN EXISTS (SELECT 1 FROM entities e WHERE e.id = f.subject_entity_id) THEN f.subject_entity_id END AS entityId
    FROM fact_candidates f WHERE f.fact_id = ? AND f.status = 'active' LIMIT 1`,
  chunk: `SELECT c.text AS title, c.language, (SELECT COALESCE(s.canonical_url, s.url) FROM sources s WHERE s.id = c.source_id) AS sourceUrl FROM chunks c WHERE c.id = ?`,
};

interface DetailRow { title: string; language: string; sourceUrl: string | null; entityId?: string | null }

/**
 * The next `limit` hits after `after`, best first: BM25 with COLUMN_WEIGHTS (lower bm25 is
 * better), then entities before facts before chunks, then record id, so the order is total and
 * a page boundary never repeats or skips a hit while the index is unchanged.
 */
export function searchKnowledge(db: Db, request: SearchRequest): RankedHit[] {
  const match = buildMatchExpression(request.query);
  if (match === undefined) return [];
  const statements = statementsOf(db);
  const rows = statements.ranked.all({
    match,
    kind: request.kind ?? null,
    afterRank: request.after?.rank ?? null,
    afterKind: request.after?.kindOrder ?? null,
    afterId: request.after?.id ?? null,
    limit: request.limit,
  }) as RankedRow[];
  return rows.map((row) => {
    const detail = statements.details[row.kind].get(row.recordId) as DetailRow | undefined;
    const hit: RankedHit = {
      kind: row.kind,
      id: row.recordId,
      score: Number((-row.rank).toPrecision(6)),
      language: detail?.language ?? '',
      title: titleOf(row.kind, detail?.title ?? ''),
      snippet: markSnippet(String(statements.snippet.get({ match, docId: row.docId }) ?? '')),
      position: { rank: row.rank, kindOrder: row.kindOrder, id: row.recordId },
    };
    if (detail?.entityId) hit.entity_id = detail.entityId;
    if (detail?.sourceUrl) hit.source_url = detail.sourceUrl;
    return hit;
  });
}

type Statement = ReturnType<Db['prepare']>;
interface SearchStatements { ranked: Statement; snippet: Statement; details: Record<SearchKind, Statement> }
const prepared = new WeakMap<Db, SearchStatements>();

/** Statements prepared once per connection: preparing costs more than running a small one. */
function statementsOf(db: Db): SearchStatements {
  let s = prepared.get(db);
  if (!s) {
    s = {
      ranked: db.prepare(RANKED_SQL),
      snippet: db.prepare(SNIPPET_SQL).pluck(),
      details: { entity: db.prepare(DETAIL_SQL.entity), fact: db.prepare(DETAIL_SQL.fact), chunk: db.prepare(DETAIL_SQL.chunk) },
    };
    prepared.set(db, s);
  }
  return s;
}

/** A digest of what a cursor's position is valid for: the same query text and kind. */
export function searchDigest(query: string, kind: SearchKind | undefined): string {
  return createHash('sha256').update(`${kind ?? ''}\u0000${query}`).digest('base64url').slice(0, 12);
}

function titleOf(kind: SearchKind, text: string): string {
  if (kind !== 'chunk') return text;
  const line = (text.split('\n', 1)[0] ?? '').trim();
  const chars = [...line];
  return chars.length <= CHUNK_TITLE_CHARS ? line : `${chars.slice(0, CHUNK_TITLE_CHARS - 1).join('').trimEnd()}…`;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

/** FTS5 marks matches with U+0002 and U+0003; the text around them is escaped so the snippet is safe HTML. */
export function markSnippet(raw: string): string {
  return raw
    .replace(/[&<>"]/g, (c) => ESCAPES[c]!)
    .replace(/[\u0000\u0001\u0004-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '')
    .replaceAll('\u0002', '<mark>')
    .replaceAll('\u0003', '</mark>');
}
