import type { Migration } from '../../sqlite.js';

/**
 * The knowledge search index (docs/knowledge.md): one FTS5 document per entity, per fact (its
 * surviving candidate) and per chunk. The graph writers keep it current in their own
 * transactions (src/ingest/graph/search-docs.ts); this step creates it and indexes what a graph made
 * before it holds, with the same text (a snapshot of that code, like every released step).
 * Visibility that editorial state decides (hidden records) is applied when searching, not here.
 */
export const migration: Migration = {
  version: 3,
  name: 'knowledge search',
  up: (db) => {
    // search_docs maps a record to its FTS5 rowid (doc_id: an INTEGER PRIMARY KEY, so VACUUM
    // keeps it). entity_id is the fact's subject (the entity itself for an entity); candidate
    // names the fact candidate (item key U+001F ordinal) the document was made from.
    db.exec(`
      CREATE TABLE search_docs (
        doc_id INTEGER PRIMARY KEY,
        record_id TEXT NOT NULL UNIQUE,
        kind TEXT NOT NULL CHECK (kind IN ('entity','fact','chunk')),
        entity_id TEXT,
        candidate TEXT
      );
      -- The exported facts of an entity (entity reads) without scanning every fact candidate.
      CREATE INDEX search_docs_by_entity ON search_docs(entity_id, kind);
      -- Columns: name (entity name, fact predicate), context (fact subject, chunk headings), value
      -- (entity type, fact value), body (chunk text), and kind (entity, fact or chunk: a kind
      -- filter is a term of the match, not a lookup per hit).
      CREATE VIRTUAL TABLE search_fts USING fts5(name, context, value, body, kind, tokenize = 'unicode61 remove_diacritics 2');

      INSERT INTO search_docs (record_id, kind, entity_id) SELECT id, 'entity', id FROM entities ORDER BY id;
      INSERT INTO search_docs (record_id, kind, entity_id, candidate)
        SELECT fact_id, 'fact', subject_entity_id, item_key || char(31) || ordinal FROM fact_candidates WHERE status = 'active' GROUP BY fact_id ORDER BY fact_id;
      INSERT INTO search_docs (record_id, kind) SELECT id, 'chunk' FROM chunks ORDER BY id;
      INSERT INTO search_fts (rowid, name, context, value, body, kind)
        SELECT d.doc_id,
          CASE d.kind WHEN 'entity' THEN e.name WHEN 'fact' THEN replace(f.predicate, '_', ' ') ELSE '' END,
          CASE d.kind WHEN 'fact' THEN f.subject
            WHEN 'chunk' THEN COALESCE((SELECT group_concat(j.value, ' / ') FROM json_each(CASE WHEN json_valid(c.heading_path) THEN c.heading_path ELSE '[]' END) j), '')
            ELSE '' END,
          CASE d.kind WHEN 'entity' THEN e.type
            WHEN 'fact' THEN COALESCE(f.display, CASE WHEN NOT json_valid(f.value) THEN f.value
              WHEN json_type(f.value) = 'text' THEN json_extract(f.value, '$')
              WHEN json_type(f.value) = 'object' THEN COALESCE((SELECT group_concat(j.value, ', ') FROM json_each(f.value, '$.values') j), f.value)
              ELSE f.value END)
            ELSE '' END,
          CASE d.kind WHEN 'chunk' THEN c.text ELSE '' END,
          d.kind
        FROM search_docs d
          LEFT JOIN entities e ON d.kind = 'entity' AND e.id = d.record_id
          LEFT JOIN fact_candidates f ON d.kind = 'fact' AND f.fact_id = d.record_id AND f.item_key || char(31) || f.ordinal = d.candidate
          LEFT JOIN chunks c ON d.kind = 'chunk' AND c.id = d.record_id
        ORDER BY d.doc_id;
    `);
  },
};
