import type { Migration } from '../../sqlite.js';

/**
 * Knowledge search that stays fast on large websites (docs/knowledge.md "Ranking" and "Index
 * upkeep"). A document's FTS5 rowid is its doc id plus a base per kind (chunks 2^40, facts
 * 2·2^40, entities 3·2^40): a kind filter is a rowid range, and the `kind` column goes. FTS5
 * keeps prefix lists of 3 and 4 characters, so a short typed prefix reads one list instead of
 * merging every word it starts. The table is contentless (the text is in the record tables;
 * snippets read it from there) with deletes by rowid, and merges 8 segments a level instead of 4:
 * both pay for the prefix lists at ingest. The index is made again from the records, with the
 * text of 0003 (a snapshot of src/ingest/graph/search-docs.ts, like every released step).
 */
const FACT_VALUE_TEXT = `COALESCE(f.display, CASE WHEN NOT json_valid(f.value) THEN f.value
    WHEN json_type(f.value) = 'text' THEN json_extract(f.value, '$')
    WHEN json_type(f.value) = 'object' THEN COALESCE((SELECT group_concat(j.value, ', ') FROM json_each(f.value, '$.values') j), f.value)
    ELSE f.value END)`;
const HEADING_TEXT = `COALESCE((SELECT group_concat(j.value, ' / ') FROM json_each(CASE WHEN json_valid(c.heading_path) THEN c.heading_path ELSE '[]' END) j), '')`;

export const migration: Migration = {
  version: 4,
  name: 'search doc ranges',
  up: (db) => {
    db.exec(`
      DROP TABLE search_fts;
      DELETE FROM search_docs;
      CREATE VIRTUAL TABLE search_fts USING fts5(name, context, value, body, tokenize = 'unicode61 remove_diacritics 2', prefix = '3 4', content = '', contentless_delete = 1);
      INSERT INTO search_fts (search_fts, rank) VALUES ('automerge', 8);

      INSERT INTO search_docs (record_id, kind, entity_id) SELECT id, 'entity', id FROM entities ORDER BY id;
      INSERT INTO search_docs (record_id, kind, entity_id, candidate)
        SELECT fact_id, 'fact', subject_entity_id, item_key || char(31) || ordinal FROM fact_candidates WHERE status = 'active' GROUP BY fact_id ORDER BY fact_id;
      INSERT INTO search_docs (record_id, kind) SELECT id, 'chunk' FROM chunks ORDER BY id;

      INSERT INTO search_fts (rowid, name, context, value, body)
        SELECT d.doc_id + (1 << 40), '', ${HEADING_TEXT}, '', c.text
        FROM search_docs d JOIN chunks c ON c.id = d.record_id WHERE d.kind = 'chunk' ORDER BY d.doc_id;
      INSERT INTO search_fts (rowid, name, context, value, body)
        SELECT d.doc_id + (2 << 40), replace(f.predicate, '_', ' '), f.subject, ${FACT_VALUE_TEXT}, ''
        FROM search_docs d JOIN fact_candidates f ON f.fact_id = d.record_id AND f.item_key || char(31) || f.ordinal = d.candidate
        WHERE d.kind = 'fact' ORDER BY d.doc_id;
      INSERT INTO search_fts (rowid, name, context, value, body)
        SELECT d.doc_id + (3 << 40), e.name, '', e.type, ''
        FROM search_docs d JOIN entities e ON e.id = d.record_id WHERE d.kind = 'entity' ORDER BY d.doc_id;
    `);
  },
};
