import type Database from 'better-sqlite3';
import type { Db } from '../storage/sqlite.js';

/**
 * Keeps the knowledge search index (search_docs + search_fts, graph migrations 0003 and 0004,
 * docs/knowledge.md) current: one document per entity, per fact (its surviving candidate) and
 * per chunk. The graph writers collect the records a change touched and refresh their documents
 * inside the same transaction, set-based: per-row triggers cost 85 % on top of the store, as FTS5
 * flushes its pending terms at every savepoint (one per item), where one refresh per batch of
 * items costs a few percent (docs/knowledge.md "Index upkeep").
 */

export type SearchDocKind = 'entity' | 'fact' | 'chunk';

/** Doc ids stay below this; a document's FTS5 rowid is its doc id plus its kind's base. */
const DOC_ID_SPAN = 2 ** 40;
const KIND_BASE: Readonly<Record<SearchDocKind, number>> = { chunk: DOC_ID_SPAN, fact: 2 * DOC_ID_SPAN, entity: 3 * DOC_ID_SPAN };

/**
 * The FTS5 rowids of each kind's documents: chunks, facts and entities in ranges of their own. A
 * kind filter is then a rowid range, and descending rowids give entities, then facts, then
 * chunks, each newest first: the order of a search whose every word is common
 * (docs/knowledge.md "Ranking"), which FTS5 reads from the index and can stop early.
 */
export const ROWID_RANGE: Readonly<Record<SearchDocKind, { first: number; last: number }>> = {
  chunk: { first: KIND_BASE.chunk + 1, last: KIND_BASE.fact - 1 },
  fact: { first: KIND_BASE.fact + 1, last: KIND_BASE.entity - 1 },
  entity: { first: KIND_BASE.entity + 1, last: KIND_BASE.entity + DOC_ID_SPAN - 1 },
};

/** The search_docs doc id of an FTS5 rowid. */
export const docIdOfRowid = (rowid: number): number => rowid % DOC_ID_SPAN;

/** SQL for the FTS5 rowid of a search_docs row (named `alias`, or unqualified). */
export function ftsRowidSql(alias?: string): string {
  const column = (name: string) => (alias ? `${alias}.${name}` : name);
  return `${column('doc_id')} + CASE ${column('kind')} WHEN 'chunk' THEN ${KIND_BASE.chunk} WHEN 'fact' THEN ${KIND_BASE.fact} ELSE ${KIND_BASE.entity} END`;
}

/** Stable ids whose search documents must be re-derived from the record tables. */
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

/** The searchable text of a fact value: its display, a string's text, a several-values object's members joined, else the JSON. */
const FACT_VALUE_TEXT = `COALESCE(f.display, CASE WHEN NOT json_valid(f.value) THEN f.value
    WHEN json_type(f.value) = 'text' THEN json_extract(f.value, '$')
    WHEN json_type(f.value) = 'object' THEN COALESCE((SELECT group_concat(j.value, ', ') FROM json_each(f.value, '$.values') j), f.value)
    ELSE f.value END)`;
const HEADING_TEXT = `COALESCE((SELECT group_concat(j.value, ' / ') FROM json_each(CASE WHEN json_valid(c.heading_path) THEN c.heading_path ELSE '[]' END) j), '')`;

const IDS = `SELECT value FROM json_each(?)`;

/**
 * The text of a kind's documents from the record tables (search_docs `d` joined to its record),
 * as the columns name (entity name, fact predicate), context (fact subject, chunk headings), value
 * (entity type, fact value) and body (chunk text). search_fts is contentless: this is also where
 * a snippet's text comes from (readSearchDocuments).
 */
const DOC_TEXT: Readonly<Record<SearchDocKind, string>> = {
  chunk: `SELECT d.doc_id + ${KIND_BASE.chunk} AS rowid, '' AS name, ${HEADING_TEXT} AS context, '' AS value, c.text AS body
    FROM search_docs d JOIN chunks c ON c.id = d.record_id WHERE d.kind = 'chunk'`,
  fact: `SELECT d.doc_id + ${KIND_BASE.fact} AS rowid, replace(f.predicate, '_', ' ') AS name, f.subject AS context, ${FACT_VALUE_TEXT} AS value, '' AS body
    FROM search_docs d JOIN fact_candidates f ON f.fact_id = d.record_id AND f.item_key || char(31) || f.ordinal = d.candidate WHERE d.kind = 'fact'`,
  entity: `SELECT d.doc_id + ${KIND_BASE.entity} AS rowid, e.name AS name, '' AS context, e.type AS value, '' AS body
    FROM search_docs d JOIN entities e ON e.id = d.record_id WHERE d.kind = 'entity'`,
};
const KINDS_BY_ROWID: readonly SearchDocKind[] = ['chunk', 'fact', 'entity'];

/**
 * The documents added after doc id `@last`, in one statement: FTS5 flushes its pending terms into
 * a new segment at the start of every write statement of the transaction (a statement
 * savepoint), so one statement per kind cost a flush and a merge each. The kinds come in rowid
 * order (chunk, fact, entity), each in doc id order: FTS5 receives ascending rowids (an
 * out-of-order rowid flushes too).
 */
const INSERT_FTS = `INSERT INTO search_fts (rowid, name, context, value, body)
  ${KINDS_BY_ROWID.map((kind) => `SELECT * FROM (${DOC_TEXT[kind]} AND d.doc_id > @last ORDER BY d.doc_id)`).join('\n  UNION ALL ')}`;

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
  deleteDocs: Stmt; deleteFts: Stmt; lastDoc: Stmt; insertEntities: Stmt; insertFacts: Stmt; insertChunks: Stmt;
  insertFts: Stmt; readDocs: Record<SearchDocKind, Stmt>;
}

const prepared = new WeakMap<Db, SearchStatements>();
const byKind = <T>(make: (kind: SearchDocKind) => T) => ({ chunk: make('chunk'), fact: make('fact'), entity: make('entity') });

function statementsOf(db: Db): SearchStatements {
  let s = prepared.get(db);
  if (s) return s;
  s = {
    // One lookup per touched record: the documents it had, if any (none for a new record).
    deleteDocs: db.prepare(`DELETE FROM search_docs WHERE record_id IN (${IDS}) RETURNING ${ftsRowidSql()}`).pluck(),
    deleteFts: db.prepare(`DELETE FROM search_fts WHERE rowid IN (${IDS})`),
    lastDoc: db.prepare('SELECT COALESCE(MAX(doc_id), 0) FROM search_docs').pluck(),
    insertEntities: db.prepare(`INSERT INTO search_docs (record_id, kind, entity_id) SELECT id, 'entity', id FROM entities WHERE id IN (${IDS}) ORDER BY id`),
    // One document per fact: its surviving candidate (export rule 2).
    insertFacts: db.prepare(`INSERT INTO search_docs (record_id, kind, entity_id, candidate)
      SELECT fact_id, 'fact', subject_entity_id, item_key || char(31) || ordinal FROM fact_candidates
      WHERE fact_id IN (${IDS}) AND status = 'active' GROUP BY fact_id ORDER BY fact_id`),
    insertChunks: db.prepare(`INSERT INTO search_docs (record_id, kind) SELECT id, 'chunk' FROM chunks WHERE id IN (${IDS}) ORDER BY id`),
    insertFts: db.prepare(INSERT_FTS),
    readDocs: byKind((kind) => db.prepare(`${DOC_TEXT[kind]} AND d.doc_id IN (${IDS})`)),
  };
  prepared.set(db, s);
  return s;
}

/**
 * Re-derives the search documents of the touched records from the record tables: a record that
 * is gone loses its document, one that exists gets its current text. Runs in the caller's
 * transaction; refreshing a record that did not change is harmless.
 */
export function refreshSearchDocs(db: Db, touched: SearchTouched): void {
  if (touched.entities.size + touched.facts.size + touched.chunks.size === 0) return;
  const s = statementsOf(db);
  // search_docs first, then search_fts in two statements (see INSERT_FTS).
  const removed = s.deleteDocs.all(JSON.stringify([...touched.entities, ...touched.facts, ...touched.chunks])) as number[];
  const last = s.lastDoc.get() as number;
  if (touched.entities.size > 0) s.insertEntities.run(JSON.stringify([...touched.entities]));
  if (touched.facts.size > 0) s.insertFacts.run(JSON.stringify([...touched.facts]));
  if (touched.chunks.size > 0) s.insertChunks.run(JSON.stringify([...touched.chunks]));
  if (removed.length > 0) s.deleteFts.run(JSON.stringify(removed.sort((a, b) => a - b)));
  s.insertFts.run({ last });
}

/** The indexed text of the documents with these FTS5 rowids (those still in the index), for snippets. */
export function readSearchDocuments(db: Db, rowids: readonly number[]): SearchDocument[] {
  const s = statementsOf(db);
  return KINDS_BY_ROWID.flatMap((kind) => {
    const ids = rowids.filter((rowid) => rowid >= ROWID_RANGE[kind].first && rowid <= ROWID_RANGE[kind].last).map(docIdOfRowid);
    return ids.length === 0 ? [] : (s.readDocs[kind].all(JSON.stringify(ids)) as SearchDocument[]);
  });
}

/** Indexes every record of the graph again (a graph loaded without the writers, such as the MCP server's). */
export function rebuildSearchDocs(db: Db): void {
  db.transaction(() => {
    // delete-all: the contentless table forgets every document at once, no tombstone per row.
    db.exec(`DELETE FROM search_docs; INSERT INTO search_fts (search_fts) VALUES ('delete-all');`);
    const ids = (sql: string) => new Set(db.prepare(sql).pluck().all() as string[]);
    refreshSearchDocs(db, {
      entities: ids('SELECT id FROM entities'),
      facts: ids(`SELECT DISTINCT fact_id FROM fact_candidates WHERE status = 'active'`),
      chunks: ids('SELECT id FROM chunks'),
    });
  })();
}
