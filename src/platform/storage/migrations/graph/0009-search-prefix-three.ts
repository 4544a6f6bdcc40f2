import type { Migration } from '../../sqlite.js';

/**
 * The knowledge search index keeps one prefix list, of 3 characters, instead of lists of 3 and 4
 * (docs/knowledge.md "Index upkeep"). FTS5 writes every token once more per list, so the list of
 * 4 was a third of the index's bytes and about a quarter of its insert work, and made
 * content.ingest slower (bench/knowledge.mjs; figures: docs/decisions.md). A typed 4-letter prefix
 * is now read from a range of the term index, as 5 letters and more always were. A prefix list is
 * fixed when the table is made, so the table is made again with the settings of migrations 0006
 * and 0007 and indexed again from the records, with the document text of 0006 (a snapshot, like
 * every released step).
 */
const CHUNK = 2 ** 40;
const FACT = 2 * 2 ** 40;
const ENTITY = 3 * 2 ** 40;
const FACT_VALUE_TEXT = `COALESCE(f.display, CASE WHEN NOT json_valid(f.value) THEN f.value
    WHEN json_type(f.value) = 'text' THEN json_extract(f.value, '$')
    WHEN json_type(f.value) = 'object' THEN COALESCE((SELECT group_concat(j.value, ', ') FROM json_each(f.value, '$.values') j), f.value)
    ELSE f.value END)`;
const HEADING_TEXT = `COALESCE((SELECT group_concat(j.value, ' / ') FROM json_each(CASE WHEN json_valid(c.heading_path) THEN c.heading_path ELSE '[]' END) j), '')`;

export const migration: Migration = {
  version: 9,
  name: 'search prefix three',
  up: (db) => {
    db.exec(`
      DROP TABLE search_fts;
      CREATE VIRTUAL TABLE search_fts USING fts5(name, context, value, body, tokenize = 'unicode61 remove_diacritics 2', prefix = '3', content = '', contentless_delete = 1);
      INSERT INTO search_fts (search_fts, rank) VALUES ('automerge', 8);
      INSERT INTO search_fts (search_fts, rank) VALUES ('hashsize', ${16 * 1024 * 1024});
      DELETE FROM search_stale;

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
