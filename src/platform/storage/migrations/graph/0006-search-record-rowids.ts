import type { Migration } from '../../sqlite.js';

/**
 * The knowledge search index without a document table (docs/knowledge.md "Index upkeep"): a
 * document's FTS5 rowid is its record's own rowid plus the base of its kind (chunks 2^40, facts
 * 2·2^40, entities 3·2^40; a fact's document is its surviving candidate's). search_docs, its two
 * indexes and the lookups that kept it cost as much as FTS5 itself at ingest; the record tables
 * now answer both ways. An erasure's VACUUM may renumber them (SQLite only promises to keep the
 * rowids of INTEGER PRIMARY KEY tables): compactGraph checks and rebuilds the index if it did.
 *
 * search_stale queues the FTS5 rowids whose documents may have changed until the writer's
 * refresh (src/ingest/graph/search-docs.ts) re-derives them. Triggers fill it from statements that write
 * many rows at once: deletes of chunks, entities and fact candidates (any status: a candidate
 * may have lost the survival earlier in the same batch), and the entity upsert (inserted, renamed
 * or retyped). The writers name the facts and chunks they inserted or re-ranked: triggers on
 * those single-row INSERTs made the store 60 to 80 % slower. Writers must not REPLACE rows of
 * these tables (a REPLACE deletes without firing delete triggers).
 *
 * search_facts_by_subject replaces search_docs_by_entity: a hidden entity's facts are withheld
 * from search, and entity reads list an entity's facts, by subject. The index is made again from
 * the records, with the text of 0004 (a snapshot, like every released step).
 */
const CHUNK = 2 ** 40;
const FACT = 2 * 2 ** 40;
const ENTITY = 3 * 2 ** 40;
const FACT_VALUE_TEXT = `COALESCE(f.display, CASE WHEN NOT json_valid(f.value) THEN f.value
    WHEN json_type(f.value) = 'text' THEN json_extract(f.value, '$')
    WHEN json_type(f.value) = 'object' THEN COALESCE((SELECT group_concat(j.value, ', ') FROM json_each(f.value, '$.values') j), f.value)
    ELSE f.value END)`;
const HEADING_TEXT = `COALESCE((SELECT group_concat(j.value, ' / ') FROM json_each(CASE WHEN json_valid(c.heading_path) THEN c.heading_path ELSE '[]' END) j), '')`;
// Not INSERT OR IGNORE: an outer statement's conflict clause (an upsert's) overrides a trigger's.
const queue = (rowid: string) =>
  `BEGIN INSERT INTO search_stale (rowid) SELECT ${rowid} WHERE NOT EXISTS (SELECT 1 FROM search_stale WHERE rowid = ${rowid}); END`;

export const migration: Migration = {
  version: 6,
  name: 'search record rowids',
  up: (db) => {
    db.exec(`
      DROP TABLE search_docs;
      DROP TABLE search_fts;
      CREATE VIRTUAL TABLE search_fts USING fts5(name, context, value, body, tokenize = 'unicode61 remove_diacritics 2', prefix = '3 4', content = '', contentless_delete = 1);
      INSERT INTO search_fts (search_fts, rank) VALUES ('automerge', 8);
      CREATE TABLE search_stale (rowid INTEGER PRIMARY KEY);
      CREATE INDEX search_facts_by_subject ON fact_candidates(subject_entity_id) WHERE status = 'active';

      CREATE TRIGGER search_chunk_deleted AFTER DELETE ON chunks ${queue(`old.rowid + ${CHUNK}`)};
      CREATE TRIGGER search_chunk_updated AFTER UPDATE OF text, heading_path ON chunks ${queue(`old.rowid + ${CHUNK}`)};
      CREATE TRIGGER search_fact_deleted AFTER DELETE ON fact_candidates ${queue(`old.rowid + ${FACT}`)};
      CREATE TRIGGER search_fact_updated AFTER UPDATE OF subject, predicate, value, display ON fact_candidates ${queue(`old.rowid + ${FACT}`)};
      CREATE TRIGGER search_entity_inserted AFTER INSERT ON entities ${queue(`new.rowid + ${ENTITY}`)};
      CREATE TRIGGER search_entity_deleted AFTER DELETE ON entities ${queue(`old.rowid + ${ENTITY}`)};
      CREATE TRIGGER search_entity_updated AFTER UPDATE OF name, type ON entities WHEN old.name IS NOT new.name OR old.type IS NOT new.type ${queue(`old.rowid + ${ENTITY}`)};

      INSERT INTO search_fts (rowid, name, context, value, body)
        SELECT c.rowid + ${CHUNK}, '', ${HEADING_TEXT}, '', c.text FROM chunks c ORDER BY c.rowid;
      INSERT INTO search_fts (rowid, name, context, value, body)
        SELECT f.rowid + ${FACT}, replace(f.predicate, '_', ' '), f.subject, ${FACT_VALUE_TEXT}, ''
        FROM fact_candidates f WHERE f.status = 'active' ORDER BY f.rowid;
      INSERT INTO search_fts (rowid, name, context, value, body)
        SELECT e.rowid + ${ENTITY}, e.name, '', e.type, '' FROM entities e ORDER BY e.rowid;
    `);
  },
};
