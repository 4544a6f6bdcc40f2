import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import { sameId, type Db } from '../../platform/storage/index.js';
import { ftsRowidSql, readSearchDocuments, ROWID_RANGE, searchRecordOf } from '../../ingest/graph/index.js';
import { queryTerms, type QueryTerm } from './search-query.js';

/**
 * Knowledge search over a graph database's FTS5 index (graph migrations 0003, 0004 and 0006, docs/knowledge.md): the
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

/** Where the next page starts: the last hit's sort key (bm25, 0 when unranked, then document id). */
export interface SearchPosition {
  rank: number;
  doc: number;
}

export interface SearchRequest {
  query: string;
  kind?: SearchKind;
  limit: number;
  after?: SearchPosition;
  /** Documents above which a word is common (COMMON_DOCUMENTS); tests lower it. */
  commonDocuments?: number;
}

export interface RankedHit extends SearchHit {
  position: SearchPosition;
}

/**
 * A word (or phrase, or the typed prefix) found in more documents than this is common: it only
 * filters and does not rank. FTS5's BM25 reads every document of every ranked word (for its idf,
 * then each match's lengths and positions), so a common word costs time in proportion to the
 * website's size, while its idf, and so its share of the score, is small. 10,000 documents keep
 * a ranked search fast (docs/knowledge.md "Ranking").
 */
export const COMMON_DOCUMENTS = 10_000;

const WEIGHTS = Object.values(COLUMN_WEIGHTS)
  .map((w) => w.toFixed(1))
  .join(', ');
const ALL_DOCS = { first: ROWID_RANGE.chunk.first, last: ROWID_RANGE.entity.last };

// Rowid bounds are CAST: better-sqlite3 binds a JS number as REAL, and FTS5 then drops a rowid
// constraint (a rowid = REAL gave every hit the first match's snippet).
const WITHIN = 'rowid BETWEEN CAST(@first AS INTEGER) AND CAST(@last AS INTEGER)';
const NOT_WITHHELD = '(@excluded IS NULL OR rowid NOT IN (SELECT value FROM json_each(@excluded)))';

// Ranked: BM25 over the uncommon words; every match of them is scored, at most COMMON_DOCUMENTS.
// Common words filter through a second FTS5 cursor (the unary + keeps SQLite from handing the
// IN list to FTS5 as one lookup per rowid).
const rankedSql = (filtered: boolean) => `SELECT rowid, rank FROM (
    SELECT rowid, bm25(search_fts, ${WEIGHTS}) AS rank FROM search_fts
    WHERE search_fts MATCH @rank AND ${WITHIN} AND ${NOT_WITHHELD}
      ${filtered ? 'AND +rowid IN (SELECT rowid FROM search_fts WHERE search_fts MATCH @match)' : ''}
  )
  WHERE @afterRank IS NULL OR rank > @afterRank OR (rank = @afterRank AND rowid < @afterRowid)
  ORDER BY rank, rowid DESC
  LIMIT @limit`;

// Every word common: the matches in descending rowid order (entities, facts, chunks, each newest
// first; src/ingest/graph/search-docs.ts ROWID_RANGE), which FTS5 reads from the index and stops after
// `limit`.
const UNRANKED_SQL = `SELECT rowid, 0 AS rank FROM search_fts
  WHERE search_fts MATCH @match AND ${WITHIN} AND ${NOT_WITHHELD}
  ORDER BY rowid DESC
  LIMIT @limit`;

// search_fts is contentless, so snippets come from a small FTS5 table of the connection's temp
// schema (same tokenizer): the hits' text goes in, snippet() runs over those rows only, and the
// rows leave again. The snippet is FTS5's own; a prefix is assembled from a few rows' words.
const SNIPPET_TABLE = `CREATE VIRTUAL TABLE IF NOT EXISTS temp.search_snippets USING fts5(name, context, value, body, tokenize = 'unicode61 remove_diacritics 2')`;
const SNIPPETS_SQL = `SELECT rowid, snippet(search_snippets, -1, char(2), char(3), '…', ${SNIPPET_TOKENS}) AS snippet FROM temp.search_snippets WHERE search_snippets MATCH @match`;

/** True when the FTS5 expression matches more than `common` documents (it reads at most that many). */
const PROBE_SQL = 'SELECT 1 FROM search_fts WHERE search_fts MATCH @match LIMIT 1 OFFSET @common';

// Export rules at query time (docs/contract.md#export-rules): the index holds only surviving
// facts; a hidden entity, a hidden fact and a fact of a hidden entity (search_facts_by_subject)
// are withheld. Chunks are exported whatever their editorial row says, as the compiler does.
// Empty when nothing is hidden. CROSS JOIN keeps editorial (small) outside: without statistics
// SQLite scanned every document and looked each up in editorial (docs/knowledge.md "Export rules").
const WITHHELD_SQL = `SELECT json_group_array(rowid) FROM (
    SELECT ${ftsRowidSql('entity', 'r')} AS rowid FROM editorial e CROSS JOIN entities r ON r.id = e.record_id WHERE e.hidden = 1
    UNION SELECT ${ftsRowidSql('fact', 'f')} FROM editorial e CROSS JOIN fact_candidates f ON ${sameId('f.fact_id', 'e.record_id')} WHERE e.hidden = 1 AND f.status = 'active'
    UNION SELECT ${ftsRowidSql('fact', 'f')} FROM editorial e CROSS JOIN fact_candidates f ON ${sameId('f.subject_entity_id', 'e.record_id')}
      WHERE e.hidden = 1 AND f.status = 'active'
  )`;

const DETAIL_SQL: Record<SearchKind, string> = {
  entity: 'SELECT name AS title, language, source_url AS sourceUrl FROM entities WHERE id = ?',
  fact: `SELECT f.subject || ': ' || replace(f.predicate, '_', ' ') AS title, f.language, f.source_url AS sourceUrl,
      CASE WHEN EXISTS (SELECT 1 FROM entities e WHERE e.id = f.subject_entity_id) THEN f.subject_entity_id END AS entityId
    FROM (SELECT ? AS id) p CROSS JOIN fact_candidates f ON ${sameId('f.fact_id', 'p.id')} WHERE f.status = 'active' LIMIT 1`,
  chunk: `SELECT c.text AS title, c.language, (SELECT COALESCE(s.canonical_url, s.url) FROM sources s WHERE s.id = c.source_id) AS sourceUrl FROM chunks c WHERE c.id = ?`,
};

interface DetailRow {
  title: string;
  language: string;
  sourceUrl: string | null;
  entityId?: string | null;
}
export interface MatchedRow {
  rowid: number;
  rank: number;
}

/** How a query runs: the FTS5 expression of every term, and that of the uncommon ones (none: unranked). */
interface SearchPlan {
  match: string;
  rank?: string;
}

/**
 * Decides per term whether it ranks (docs/knowledge.md "Ranking"). The typed last word matches
 * whole when that form alone is common: its longer forms would add little, and FTS5 assembles a
 * prefix not in its prefix lists from every word it starts.
 */
function planSearch(terms: QueryTerm[], isCommon: (match: string) => boolean): SearchPlan {
  const forms = terms.map((term) => {
    if (isCommon(term.exact)) return { match: term.exact, common: true };
    if (term.prefix === undefined) return { match: term.exact, common: false };
    return { match: term.prefix, common: isCommon(term.prefix) };
  });
  const rare = forms.filter((form) => !form.common);
  return {
    match: forms.map((form) => form.match).join(' '),
    ...(rare.length > 0 ? { rank: rare.map((form) => form.match).join(' ') } : {}),
  };
}

/**
 * The next `limit` hits after `after`, best first, under a total order, so a page boundary never
 * repeats or skips a hit while the index is unchanged. Ranked (some word is not common): BM25 with
 * COLUMN_WEIGHTS over the uncommon words (lower bm25 is better), then rowid descending.
 * Unranked (every word common): rowid descending, score 0.
 */
export function searchKnowledge(db: Db, request: SearchRequest): RankedHit[] {
  const matched = matchKnowledge(db, request);
  return matched ? hitsOf(db, matched.match, matched.rows) : [];
}

/** The FTS5 expression of a query (undefined when it holds no searchable word) and the rows it ranks. */
export function matchKnowledge(db: Db, request: SearchRequest): { match: string; rows: MatchedRow[] } | undefined {
  const terms = queryTerms(request.query);
  if (terms.length === 0) return undefined;
  const statements = statementsOf(db);
  const common = request.commonDocuments ?? COMMON_DOCUMENTS;
  const plan = planSearch(terms, (match) => statements.probe.get({ match, common }) !== undefined);
  const withheld = statements.withheld.get() as string;
  const range = request.kind ? ROWID_RANGE[request.kind] : ALL_DOCS;
  const base = { match: plan.match, excluded: withheld === '[]' ? null : withheld, limit: request.limit };
  const rows = (
    plan.rank === undefined
      ? statements.unranked.all({
          ...base,
          first: range.first,
          last: request.after ? Math.min(range.last, request.after.doc - 1) : range.last,
        })
      : (plan.rank === plan.match ? statements.ranked : statements.rankedFiltered).all({
          ...base,
          rank: plan.rank,
          first: range.first,
          last: range.last,
          afterRank: request.after?.rank ?? null,
          afterRowid: request.after?.doc ?? null,
        })
  ) as MatchedRow[];
  return { match: plan.match, rows };
}

/**
 * The hits of matched rows, in their order: details and snippets are read only for these. `match`
 * marks the snippets (undefined: none matches, a vector hit's snippet is its text's start);
 * `score` replaces BM25 when given (fused and vector modes).
 */
export function hitsOf(
  db: Db,
  match: string | undefined,
  rows: ReadonlyArray<MatchedRow & { score?: number }>,
): RankedHit[] {
  const statements = statementsOf(db);
  const snippets =
    match === undefined
      ? new Map<number, string>()
      : snippetsOf(
          db,
          statements,
          match,
          rows.map((row) => row.rowid),
        );
  const hits: RankedHit[] = [];
  for (const row of rows) {
    const doc = searchRecordOf(db, row.rowid);
    if (!doc) continue;
    const detail = statements.details[doc.kind].get(doc.recordId) as DetailRow | undefined;
    const hit: RankedHit = {
      kind: doc.kind,
      id: doc.recordId,
      score: row.score ?? (row.rank === 0 ? 0 : Number((-row.rank).toPrecision(6))),
      language: detail?.language ?? '',
      title: titleOf(doc.kind, detail?.title ?? ''),
      snippet: snippets.has(row.rowid)
        ? markSnippet(snippets.get(row.rowid)!)
        : markSnippet(leadOf(doc.kind === 'chunk' ? (detail?.title ?? '') : '')),
      position: { rank: row.rank, doc: row.rowid },
    };
    if (detail?.entityId) hit.entity_id = detail.entityId;
    if (detail?.sourceUrl) hit.source_url = detail.sourceUrl;
    hits.push(hit);
  }
  return hits;
}

/** The first words of a text, as a snippet of a hit no query term matched (a vector hit). */
function leadOf(text: string): string {
  const words = text.split(/\s+/).filter(Boolean);
  return words.length <= SNIPPET_TOKENS ? words.join(' ') : `${words.slice(0, SNIPPET_TOKENS).join(' ')}…`;
}

/** FTS5's snippet of each hit, by rowid, from the hits' text in the temp snippet table. */
function snippetsOf(db: Db, statements: SearchStatements, match: string, rowids: number[]): Map<number, string> {
  if (rowids.length === 0) return new Map();
  const documents = readSearchDocuments(db, rowids);
  return db.transaction(() => {
    for (const document of documents) statements.snippetInsert.run(document);
    const rows = statements.snippets.all({ match }) as Array<{ rowid: number; snippet: string | null }>;
    statements.snippetClear.run();
    return new Map(rows.map((row) => [row.rowid, row.snippet ?? '']));
  })();
}

type Statement = Database.Statement<unknown[]>;
interface SearchStatements {
  probe: Statement;
  ranked: Statement;
  rankedFiltered: Statement;
  unranked: Statement;
  snippetInsert: Statement;
  snippets: Statement;
  snippetClear: Statement;
  withheld: Statement;
  details: Record<SearchKind, Statement>;
}
const prepared = new WeakMap<Db, SearchStatements>();

/** Statements prepared once per connection: preparing costs more than running a small one. */
function statementsOf(db: Db): SearchStatements {
  let s = prepared.get(db);
  if (!s) {
    db.exec(SNIPPET_TABLE);
    s = {
      probe: db.prepare(PROBE_SQL),
      ranked: db.prepare(rankedSql(false)),
      rankedFiltered: db.prepare(rankedSql(true)),
      unranked: db.prepare(UNRANKED_SQL),
      snippetInsert: db.prepare(
        'INSERT INTO temp.search_snippets (rowid, name, context, value, body) VALUES (CAST(@rowid AS INTEGER), @name, @context, @value, @body)',
      ),
      snippets: db.prepare(SNIPPETS_SQL),
      snippetClear: db.prepare('DELETE FROM temp.search_snippets'),
      withheld: db.prepare(WITHHELD_SQL).pluck(),
      details: {
        entity: db.prepare(DETAIL_SQL.entity),
        fact: db.prepare(DETAIL_SQL.fact),
        chunk: db.prepare(DETAIL_SQL.chunk),
      },
    };
    prepared.set(db, s);
  }
  return s;
}

/** A digest of what a cursor's position is valid for: the same query text, kind and mode. */
export function searchDigest(query: string, kind: SearchKind | undefined, mode = 'keyword'): string {
  return createHash('sha256')
    .update(`${kind ?? ''}\u0000${query}${mode === 'keyword' ? '' : `\u0000${mode}`}`)
    .digest('base64url')
    .slice(0, 12);
}

function titleOf(kind: SearchKind, text: string): string {
  if (kind !== 'chunk') return text;
  const line = (text.split('\n', 1)[0] ?? '').trim();
  const chars = [...line];
  return chars.length <= CHUNK_TITLE_CHARS
    ? line
    : `${chars
        .slice(0, CHUNK_TITLE_CHARS - 1)
        .join('')
        .trimEnd()}…`;
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
