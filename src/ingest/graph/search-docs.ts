import type Database from 'better-sqlite3';
import { sameId, type Db } from '../../platform/storage/index.js';

/**
 * Keeps the knowledge search index (search_fts, graph migrations 0003, 0004 and 0006,
 * docs/knowledge.md) current: one document per entity, per fact (its surviving candidate) and
 * per chunk. A document's FTS5 rowid is its record's own rowid plus a base per kind (the
 * surviving candidate's rowid for a fact), so no table maps records to documents: the record
 * tables answer both ways. The graph writers refresh the documents of what they changed inside
 * the same transaction, set-based, once per transaction (docs/knowledge.md "Index upkeep").
 */

export type SearchDocKind = 'entity' | 'fact' | 'chunk';

/** Record rowids stay below this; a document's FTS5 rowid is its record's rowid plus its kind's base. */
const ROWID_SPAN = 2 ** 40;
const KIND_BASE: Readonly<Record<SearchDocKind, number>> = {
  chunk: ROWID_SPAN,
  fact: 2 * ROWID_SPAN,
  entity: 3 * ROWID_SPAN,
};

/**
 * The FTS5 rowids of each kind's documents: chunks, facts and entities in ranges of their own. A
 * kind filter is then a rowid range, and descending rowids give entities, then facts, then
 * chunks, each newest record first: the order of a search whose every word is common
 * (docs/knowledge.md "Ranking"), which FTS5 reads from the index and can stop early.
 */
export const ROWID_RANGE: Readonly<Record<SearchDocKind, { first: number; last: number }>> = {
  chunk: { first: KIND_BASE.chunk + 1, last: KIND_BASE.fact - 1 },
  fact: { first: KIND_BASE.fact + 1, last: KIND_BASE.entity - 1 },
  entity: { first: KIND_BASE.entity + 1, last: KIND_BASE.entity + ROWID_SPAN - 1 },
};
const KINDS_BY_ROWID: readonly SearchDocKind[] = ['chunk', 'fact', 'entity'];

/** The kind of the document with this FTS5 rowid. */
export function kindOfRowid(rowid: number): SearchDocKind | undefined {
  return KINDS_BY_ROWID.find((kind) => rowid >= ROWID_RANGE[kind].first && rowid <= ROWID_RANGE[kind].last);
}

/**
 * The record tables each kind is made from, and the SQL of a document's FTS5 rowid from a row
 * named `alias` of that table: a fact's document is its surviving candidate's (status 'active').
 */
const TABLE: Readonly<Record<SearchDocKind, string>> = { chunk: 'chunks', fact: 'fact_candidates', entity: 'entities' };
export const ftsRowidSql = (kind: SearchDocKind, alias: string): string => `${alias}.rowid + ${KIND_BASE[kind]}`;

/** Stable ids whose search documents may have changed (the writers collect them per batch). */
export interface SearchTouched {
  entities: Set<string>;
  facts: Set<string>;
  chunks: Set<string>;
}

export function emptySearchTouched(): SearchTouched {
  return { entities: new Set(), facts: new Set(), chunks: new Set() };
}

/** Adds `from` to `into` (a batch collects the records its items touched). */
export function mergeSearchTouched(into: SearchTouched, from: SearchTouched): void {
  for (const id of from.entities) into.entities.add(id);
  for (const id of from.facts) into.facts.add(id);
  for (const id of from.chunks) into.chunks.add(id);
}

/**
 * The searchable text of a fact value: its display, a string's
 * text, a several-values object's members joined, else the JSON.
 */
const FACT_VALUE_TEXT = `COALESCE(f.display, CASE WHEN NOT json_valid(f.value) THEN f.value
    WHEN json_type(f.value) = 'text' THEN json_extract(f.value, '$')
    WHEN json_type(f.value) = 'object' THEN COALESCE((SELECT group_concat(j.value, ', ') FROM json_each(f.value, '$.values') j), f.value)
    ELSE f.value END)`;
const HEADING_TEXT = `COALESCE((SELECT group_concat(j.value, ' / ') FROM json_each(CASE WHEN json_valid(c.heading_path) THEN c.heading_path ELSE '[]' END) j), '')`;

/**
 * The documents whose FTS5 rowids `source` (a query with a `rowid` column, ascending) lists,
 * those that exist: columns name (entity name, fact predicate), context (fact subject, chunk
 * headings), value (entity type, fact value) and body (chunk text). search_fts is contentless:
 * this is also where a snippet's text comes from (readSearchDocuments). Kinds in rowid order
 * (chunk, fact, entity), each ascending: FTS5 receives ascending rowids (an out-of-order rowid
 * flushes its pending terms).
 */
function documentsSql(source: string): string {
  const within = (kind: SearchDocKind) => `s.rowid BETWEEN ${ROWID_RANGE[kind].first} AND ${ROWID_RANGE[kind].last}`;
  const text: Record<SearchDocKind, string> = {
    chunk: `SELECT s.rowid, '' AS name, ${HEADING_TEXT} AS context, '' AS value, c.text AS body
      FROM ${source} s JOIN chunks c ON c.rowid = s.rowid - ${KIND_BASE.chunk} WHERE ${within('chunk')}`,
    fact: `SELECT s.rowid, replace(f.predicate, '_', ' ') AS name, f.subject AS context, ${FACT_VALUE_TEXT} AS value, '' AS body
      FROM ${source} s JOIN fact_candidates f ON f.rowid = s.rowid - ${KIND_BASE.fact} WHERE ${within('fact')} AND f.status = 'active'`,
    entity: `SELECT s.rowid, e.name AS name, '' AS context, e.type AS value, '' AS body
      FROM ${source} s JOIN entities e ON e.rowid = s.rowid - ${KIND_BASE.entity} WHERE ${within('entity')}`,
  };
  return KINDS_BY_ROWID.map((kind) => `SELECT * FROM (${text[kind]} ORDER BY s.rowid)`).join('\n  UNION ALL ');
}

/** One document's text, as indexed. */
export interface SearchDocument {
  rowid: number;
  name: string;
  context: string;
  value: string;
  body: string;
}

type Stmt = Database.Statement<unknown[]>;
interface SearchStatements {
  staleFacts: Stmt;
  staleChunks: Stmt;
  deleteStale: Stmt;
  insertStale: Stmt;
  clearStale: Stmt;
  readDocs: Stmt;
  recordIds: Record<SearchDocKind, Stmt>;
}

const prepared = new WeakMap<Db, SearchStatements>();

function statementsOf(db: Db): SearchStatements {
  let s = prepared.get(db);
  if (s) return s;
  s = {
    // Every candidate of a touched fact: the survivor gets its document, one that lost the
    // survival (or was re-ranked) loses its own.
    staleFacts: db.prepare(
      `INSERT OR IGNORE INTO search_stale (rowid) SELECT ${ftsRowidSql('fact', 'f')} FROM json_each(?) t JOIN fact_candidates f ON ${sameId('f.fact_id', 't.value')}`,
    ),
    staleChunks: db.prepare(
      `INSERT OR IGNORE INTO search_stale (rowid) SELECT ${ftsRowidSql('chunk', 'c')} FROM json_each(?) t JOIN chunks c ON c.id = t.value`,
    ),
    // Only documents the index holds (FTS5's own docsize table, one row per document).
    deleteStale: db.prepare(
      'DELETE FROM search_fts WHERE rowid IN (SELECT s.rowid FROM search_stale s JOIN search_fts_docsize d ON d.id = s.rowid)',
    ),
    insertStale: db.prepare(
      `INSERT INTO search_fts (rowid, name, context, value, body)\n  ${documentsSql('search_stale')}`,
    ),
    clearStale: db.prepare('DELETE FROM search_stale'),
    readDocs: db.prepare(documentsSql('(SELECT value AS rowid FROM json_each(@rowids))')),
    recordIds: {
      chunk: db.prepare(`SELECT id FROM chunks WHERE rowid = ? - ${KIND_BASE.chunk}`).pluck(),
      fact: db.prepare(`SELECT fact_id FROM fact_candidates WHERE rowid = ? - ${KIND_BASE.fact}`).pluck(),
      entity: db.prepare(`SELECT id FROM entities WHERE rowid = ? - ${KIND_BASE.entity}`).pluck(),
    },
  };
  prepared.set(db, s);
  return s;
}

/**
 * Re-derives the search documents of what changed from the record tables: a record that is gone
 * loses its document, one that exists gets its current text. Which documents may have changed
 * comes from two places (docs/knowledge.md "Index upkeep"): triggers of graph migration 0006
 * queue in search_stale the rowids of deleted chunks, entities and fact candidates and of
 * entities inserted or renamed (statements that write many rows at once), and `touched` names
 * the facts and chunks the writers inserted or re-ranked (triggers on those single-row INSERTs
 * made the store's statements much slower). Runs in the caller's transaction; refreshing a
 * record that did not change is harmless.
 */
export function refreshSearchDocs(db: Db, touched: SearchTouched): void {
  const s = statementsOf(db);
  if (touched.facts.size > 0) s.staleFacts.run(JSON.stringify([...touched.facts]));
  if (touched.chunks.size > 0) s.staleChunks.run(JSON.stringify([...touched.chunks]));
  // Two statements on search_fts: FTS5 flushes its pending terms into a new segment at the
  // start of every write statement (a statement savepoint).
  s.deleteStale.run();
  s.insertStale.run();
  s.clearStale.run();
}

/** The indexed text of the documents with these FTS5 rowids (those still in the index), for snippets. */
export function readSearchDocuments(db: Db, rowids: readonly number[]): SearchDocument[] {
  if (rowids.length === 0) return [];
  return statementsOf(db).readDocs.all({ rowids: JSON.stringify(rowids) }) as SearchDocument[];
}

/** The record a document was made from: its kind and stable id; undefined when it is gone. */
export function searchRecordOf(db: Db, rowid: number): { kind: SearchDocKind; recordId: string } | undefined {
  const kind = kindOfRowid(rowid);
  if (!kind) return undefined;
  const recordId = statementsOf(db).recordIds[kind].get(rowid) as string | undefined;
  return recordId === undefined ? undefined : { kind, recordId };
}

/** Indexes every record of the graph again (a graph loaded without the writers, such as the MCP server's). */
export function rebuildSearchDocs(db: Db): void {
  db.transaction(() => {
    // delete-all: the contentless table forgets every document at once, no tombstone per row.
    db.exec(`INSERT INTO search_fts (search_fts) VALUES ('delete-all'); DELETE FROM search_stale;
      INSERT INTO search_stale (rowid) ${KINDS_BY_ROWID.map((kind) => `SELECT ${ftsRowidSql(kind, 'r')} FROM ${TABLE[kind]} r`).join(' UNION ALL ')};`);
    const s = statementsOf(db);
    s.insertStale.run();
    s.clearStale.run();
  })();
}
