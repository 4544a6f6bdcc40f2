import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
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
 * Names over values over chunk text. The kind column only filters (weight 0).
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

/** Where the next page starts: the last hit's sort key (bm25, then document id). */
export interface SearchPosition {
  rank: number;
  doc: number;
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

interface RankedRow { docId: number; rank: number }

const WEIGHTS = [...Object.values(COLUMN_WEIGHTS), 0].map((w) => w.toFixed(1)).join(', ');
/** User terms match the text columns only; the kind column is for the kind filter. */
const TEXT_COLUMNS = '{name context value body}';

// Pure FTS5 on the hot path: the ranking reads only the index (no join per match), so its cost
// is FTS5's own. Documents withheld by editorial state come as a list of doc ids (excluded).
const RANKED_SQL = `SELECT docId, rank FROM (
    SELECT rowid AS docId, bm25(search_fts, ${WEIGHTS}) AS rank FROM search_fts
    WHERE search_fts MATCH @match AND (@excluded IS NULL OR rowid NOT IN (SELECT value FROM json_each(@excluded)))
  )
  WHERE @afterRank IS NULL OR rank > @afterRank OR (rank = @afterRank AND docId > @afterDoc)
  ORDER BY rank, docId
  LIMIT @limit`;

// Export rules at query time (docs/contract.md#export-rules): the index holds only surviving
// facts; a hidden entity, a hidden fact and a fact of a hidden entity are withheld. Chunks are
// exported whatever their editorial row says, as the compiler does. Empty when nothing is hidden.
// CROSS JOIN keeps editorial (small) outside: without statistics SQLite scanned every document
// and looked each up in editorial (115 ms a search on 1.1 million documents).
const WITHHELD_SQL = `SELECT json_group_array(doc_id) FROM (
    SELECT d.doc_id FROM editorial e CROSS JOIN search_docs d ON d.record_id = e.record_id AND d.kind != 'chunk' WHERE e.hidden = 1
    UNION SELECT d.doc_id FROM editorial e CROSS JOIN search_docs d ON d.entity_id = e.record_id AND d.kind = 'fact' WHERE e.hidden = 1
  )`;

// The CAST matters: better-sqlite3 binds a JS number as REAL, and FTS5 then drops the rowid
// constraint, answering the first match's snippet for every hit.
const SNIPPET_SQL = `SELECT snippet(search_fts, -1, char(2), char(3), '…', ${SNIPPET_TOKENS}) FROM search_fts WHERE search_fts MATCH @match AND rowid = CAST(@docId AS INTEGER)`;

const DOC_SQL = 'SELECT kind, record_id AS recordId FROM search_docs WHERE doc_id = ?';

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
 * better), then document id, so the order is total and a page boundary never repeats or skips
 * a hit while the index is unchanged.
 */
export function searchKnowledge(db: Db, request: SearchRequest): RankedHit[] {
  const terms = buildMatchExpression(request.query);
  if (terms === undefined) return [];
  const match = `${TEXT_COLUMNS} : (${terms})` + (request.kind ? ` AND kind : "${request.kind}"` : '');
  const statements = statementsOf(db);
  const withheld = statements.withheld.get() as string;
  const rows = statements.ranked.all({
    match,
    excluded: withheld === '[]' ? null : withheld,
    afterRank: request.after?.rank ?? null,
    afterDoc: request.after?.doc ?? null,
    limit: request.limit,
  }) as RankedRow[];
  const hits: RankedHit[] = [];
  for (const row of rows) {
    const doc = statements.doc.get(row.docId) as { kind: SearchKind; recordId: string } | undefined;
    if (!doc) continue;
    const detail = statements.details[doc.kind].get(doc.recordId) as DetailRow | undefined;
    const hit: RankedHit = {
      kind: doc.kind,
      id: doc.recordId,
      score: Number((-row.rank).toPrecision(6)),
      language: detail?.language ?? '',
      title: titleOf(doc.kind, detail?.title ?? ''),
      snippet: markSnippet(String(statements.snippet.get({ match, docId: row.docId }) ?? '')),
      position: { rank: row.rank, doc: row.docId },
    };
    if (detail?.entityId) hit.entity_id = detail.entityId;
    if (detail?.sourceUrl) hit.source_url = detail.sourceUrl;
    hits.push(hit);
  }
  return hits;
}

type Statement = Database.Statement<unknown[]>;
interface SearchStatements { ranked: Statement; withheld: Statement; snippet: Statement; doc: Statement; details: Record<SearchKind, Statement> }
const prepared = new WeakMap<Db, SearchStatements>();

/** Statements prepared once per connection: preparing costs more than running a small one. */
function statementsOf(db: Db): SearchStatements {
  let s = prepared.get(db);
  if (!s) {
    s = {
      ranked: db.prepare(RANKED_SQL),
      withheld: db.prepare(WITHHELD_SQL).pluck(),
      snippet: db.prepare(SNIPPET_SQL).pluck(),
      doc: db.prepare(DOC_SQL),
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
