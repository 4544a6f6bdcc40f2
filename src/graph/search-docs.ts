import type Database from 'better-sqlite3';
import type { Db } from '../storage/sqlite.js';

/**
 * Keeps the knowledge search index (search_docs + search_fts, graph migration 0003,
 * docs/knowledge.md) current: one document per entity, per fact (its surviving candidate) and
 * per chunk. The graph writers collect the records a change touched and refresh their documents
 * inside the same transaction, set-based: per-row triggers cost 85 % on top of the store, as FTS5
 * flushes its pending terms at every savepoint (one per item), where one refresh per batch of
 * items costs a few percent (docs/knowledge.md "Index upkeep").
 */

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
 * Columns: name (entity name, fact predicate), context (fact subject, chunk headings), value
 * (entity type, fact value), body (chunk text), kind. Documents added after doc id `?`, in doc
 * id order, so FTS5 receives ascending rowids (an out-of-order rowid flushes its pending terms).
 */
const INSERT_FTS = `INSERT INTO search_fts (rowid, name, context, value, body, kind)
  SELECT d.doc_id,
    CASE d.kind WHEN 'entity' THEN e.name WHEN 'fact' THEN replace(f.predicate, '_', ' ') ELSE '' END,
    CASE d.kind WHEN 'fact' THEN f.subject WHEN 'chunk' THEN ${HEADING_TEXT} ELSE '' END,
    CASE d.kind WHEN 'entity' THEN e.type WHEN 'fact' THEN ${FACT_VALUE_TEXT} ELSE '' END,
    CASE d.kind WHEN 'chunk' THEN c.text ELSE '' END,
    d.kind
  FROM search_docs d
    LEFT JOIN entities e ON d.kind = 'entity' AND e.id = d.record_id
    LEFT JOIN fact_candidates f ON d.kind = 'fact' AND f.fact_id = d.record_id AND f.item_key || char(31) || f.ordinal = d.candidate
    LEFT JOIN chunks c ON d.kind = 'chunk' AND c.id = d.record_id
  WHERE d.doc_id > ? ORDER BY d.doc_id`;

type Stmt = Database.Statement<unknown[]>;
interface SearchStatements { deleteFts: Stmt; deleteDocs: Stmt; lastDoc: Stmt; insertEntities: Stmt; insertFacts: Stmt; insertChunks: Stmt; insertFts: Stmt }

const prepared = new WeakMap<Db, SearchStatements>();

function statementsOf(db: Db): SearchStatements {
  let s = prepared.get(db);
  if (s) return s;
  s = {
    deleteFts: db.prepare(`DELETE FROM search_fts WHERE rowid IN (SELECT doc_id FROM search_docs WHERE record_id IN (${IDS}))`),
    deleteDocs: db.prepare(`DELETE FROM search_docs WHERE record_id IN (${IDS})`),
    lastDoc: db.prepare('SELECT COALESCE(MAX(doc_id), 0) FROM search_docs').pluck(),
    insertEntities: db.prepare(`INSERT INTO search_docs (record_id, kind, entity_id) SELECT id, 'entity', id FROM entities WHERE id IN (${IDS}) ORDER BY id`),
    // One document per fact: its surviving candidate (export rule 2).
    insertFacts: db.prepare(`INSERT INTO search_docs (record_id, kind, entity_id, candidate)
      SELECT fact_id, 'fact', subject_entity_id, item_key || char(31) || ordinal FROM fact_candidates
      WHERE fact_id IN (${IDS}) AND status = 'active' GROUP BY fact_id ORDER BY fact_id`),
    insertChunks: db.prepare(`INSERT INTO search_docs (record_id, kind) SELECT id, 'chunk' FROM chunks WHERE id IN (${IDS}) ORDER BY id`),
    insertFts: db.prepare(INSERT_FTS),
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
  const all = JSON.stringify([...touched.entities, ...touched.facts, ...touched.chunks]);
  s.deleteFts.run(all);
  s.deleteDocs.run(all);
  const last = s.lastDoc.get() as number;
  if (touched.entities.size > 0) s.insertEntities.run(JSON.stringify([...touched.entities]));
  if (touched.facts.size > 0) s.insertFacts.run(JSON.stringify([...touched.facts]));
  if (touched.chunks.size > 0) s.insertChunks.run(JSON.stringify([...touched.chunks]));
  s.insertFts.run(last);
}

/** Indexes every record of the graph again (a graph loaded without the writers, such as the MCP server's). */
export function rebuildSearchDocs(db: Db): void {
  db.transaction(() => {
    db.exec(`DELETE FROM search_docs; DELETE FROM search_fts;`);
    const ids = (sql: string) => new Set(db.prepare(sql).pluck().all() as string[]);
    refreshSearchDocs(db, {
      entities: ids('SELECT id FROM entities'),
      facts: ids(`SELECT DISTINCT fact_id FROM fact_candidates WHERE status = 'active'`),
      chunks: ids('SELECT id FROM chunks'),
    });
  })();
}
