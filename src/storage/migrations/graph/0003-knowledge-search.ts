import type { Migration } from '../../sqlite.js';

/**
 * The knowledge search index (docs/knowledge.md): one FTS5 document per entity, per surviving
 * fact candidate and per chunk, kept current by triggers on the record tables, so every write
 * (content.ingest, deletes, erasures, editorial pins) updates it in its own transaction.
 * Visibility that editorial state decides (hidden records) is applied when searching, not here.
 */
export const migration: Migration = {
  version: 3,
  name: 'knowledge search',
  up: (db) => {
    // search_docs maps a record to its FTS5 rowid: doc_id is an INTEGER PRIMARY KEY, so VACUUM
    // (run after an erasure) keeps it, where the record tables' implicit rowids may change.
    // For a fact, `candidate` names the candidate (item key U+001F ordinal) the document holds.
    db.exec(`
      CREATE TABLE search_docs (
        doc_id INTEGER PRIMARY KEY,
        record_id TEXT NOT NULL UNIQUE,
        kind TEXT NOT NULL CHECK (kind IN ('entity','fact','chunk')),
        entity_id TEXT,
        candidate TEXT
      );
      -- Columns, heaviest first when ranked: name (entity name, fact predicate), context (fact
      -- subject, chunk headings), value (fact value, entity type), body (chunk text).
      CREATE VIRTUAL TABLE search_fts USING fts5(name, context, value, body, tokenize = 'unicode61 remove_diacritics 2');

      CREATE TRIGGER search_entity_insert AFTER INSERT ON entities BEGIN
        INSERT INTO search_docs (record_id, kind, entity_id) VALUES (new.id, 'entity', new.id);
        INSERT INTO search_fts (rowid, name, context, value, body) VALUES (last_insert_rowid(), new.name, '', new.type, '');
      END;
      CREATE TRIGGER search_entity_update AFTER UPDATE OF name, type ON entities WHEN old.name IS NOT new.name OR old.type IS NOT new.type BEGIN
        UPDATE search_fts SET name = new.name, value = new.type WHERE rowid = (SELECT doc_id FROM search_docs WHERE record_id = new.id);
      END;
      CREATE TRIGGER search_entity_delete AFTER DELETE ON entities BEGIN
        DELETE FROM search_fts WHERE rowid = (SELECT doc_id FROM search_docs WHERE record_id = old.id);
        DELETE FROM search_docs WHERE record_id = old.id;
      END;

      -- Only the surviving candidate of a fact is a document (export rule 2). The store inserts
      -- candidates as superseded and then marks the survivor, so the document follows status.
      CREATE TRIGGER search_fact_insert AFTER INSERT ON fact_candidates WHEN new.status = 'active' BEGIN
        DELETE FROM search_fts WHERE rowid = (SELECT doc_id FROM search_docs WHERE record_id = new.fact_id);
        DELETE FROM search_docs WHERE record_id = new.fact_id;
        INSERT INTO search_docs (record_id, kind, entity_id, candidate) VALUES (new.fact_id, 'fact', new.subject_entity_id, new.item_key || char(31) || new.ordinal);
        INSERT INTO search_fts (rowid, name, context, value, body) VALUES (last_insert_rowid(), replace(new.predicate, '_', ' '), new.subject, ${factValueText('new')}, '');
      END;
      CREATE TRIGGER search_fact_activate AFTER UPDATE OF status ON fact_candidates WHEN new.status = 'active' AND old.status IS NOT 'active' BEGIN
        DELETE FROM search_fts WHERE rowid = (SELECT doc_id FROM search_docs WHERE record_id = new.fact_id);
        DELETE FROM search_docs WHERE record_id = new.fact_id;
        INSERT INTO search_docs (record_id, kind, entity_id, candidate) VALUES (new.fact_id, 'fact', new.subject_entity_id, new.item_key || char(31) || new.ordinal);
        INSERT INTO search_fts (rowid, name, context, value, body) VALUES (last_insert_rowid(), replace(new.predicate, '_', ' '), new.subject, ${factValueText('new')}, '');
      END;
      CREATE TRIGGER search_fact_deactivate AFTER UPDATE OF status ON fact_candidates WHEN old.status = 'active' AND new.status IS NOT 'active' BEGIN
        ${deleteFactDoc}
      END;
      CREATE TRIGGER search_fact_delete AFTER DELETE ON fact_candidates WHEN old.status = 'active' BEGIN
        ${deleteFactDoc}
      END;
      CREATE TRIGGER search_fact_update AFTER UPDATE OF subject, predicate, value, display ON fact_candidates WHEN new.status = 'active' AND old.status = 'active' BEGIN
        UPDATE search_fts SET name = replace(new.predicate, '_', ' '), context = new.subject, value = ${factValueText('new')}
          WHERE rowid = (SELECT doc_id FROM search_docs WHERE record_id = new.fact_id AND candidate = new.item_key || char(31) || new.ordinal);
      END;

      CREATE TRIGGER search_chunk_insert AFTER INSERT ON chunks BEGIN
        INSERT INTO search_docs (record_id, kind) VALUES (new.id, 'chunk');
        INSERT INTO search_fts (rowid, name, context, value, body) VALUES (last_insert_rowid(), '', ${headingText('new')}, '', new.text);
      END;
      CREATE TRIGGER search_chunk_update AFTER UPDATE OF text, heading_path ON chunks BEGIN
        UPDATE search_fts SET context = ${headingText('new')}, body = new.text WHERE rowid = (SELECT doc_id FROM search_docs WHERE record_id = new.id);
      END;
      CREATE TRIGGER search_chunk_delete AFTER DELETE ON chunks BEGIN
        DELETE FROM search_fts WHERE rowid = (SELECT doc_id FROM search_docs WHERE record_id = old.id);
        DELETE FROM search_docs WHERE record_id = old.id;
      END;
    `);
    // Graphs made before this version: index what they hold, as the triggers would have.
    db.exec(`
      INSERT INTO search_docs (record_id, kind, entity_id) SELECT id, 'entity', id FROM entities ORDER BY id;
      INSERT INTO search_fts (rowid, name, context, value, body) SELECT d.doc_id, e.name, '', e.type, '' FROM search_docs d JOIN entities e ON e.id = d.record_id;
      INSERT INTO search_docs (record_id, kind, entity_id, candidate)
        SELECT fact_id, 'fact', subject_entity_id, item_key || char(31) || ordinal FROM fact_candidates WHERE status = 'active' GROUP BY fact_id ORDER BY fact_id;
      INSERT INTO search_fts (rowid, name, context, value, body)
        SELECT d.doc_id, replace(f.predicate, '_', ' '), f.subject, ${factValueText('f')}, ''
        FROM search_docs d JOIN fact_candidates f ON f.fact_id = d.record_id AND f.item_key || char(31) || f.ordinal = d.candidate;
      INSERT INTO search_docs (record_id, kind) SELECT id, 'chunk' FROM chunks ORDER BY id;
      INSERT INTO search_fts (rowid, name, context, value, body) SELECT d.doc_id, '', ${headingText('c')}, '', c.text FROM search_docs d JOIN chunks c ON c.id = d.record_id;
    `);
  },
};

const deleteFactDoc = `
        DELETE FROM search_fts WHERE rowid = (SELECT doc_id FROM search_docs WHERE record_id = old.fact_id AND candidate = old.item_key || char(31) || old.ordinal);
        DELETE FROM search_docs WHERE record_id = old.fact_id AND candidate = old.item_key || char(31) || old.ordinal;`;

/**
 * The searchable text of a fact value (JSON in the column): its display when it has one, a
 * string's text, the members of a several-values object joined, else the JSON as written.
 */
function factValueText(row: string): string {
  return `COALESCE(${row}.display, CASE WHEN NOT json_valid(${row}.value) THEN ${row}.value
    WHEN json_type(${row}.value) = 'text' THEN json_extract(${row}.value, '$')
    WHEN json_type(${row}.value) = 'object' THEN COALESCE((SELECT group_concat(j.value, ', ') FROM json_each(${row}.value, '$.values') j), ${row}.value)
    ELSE ${row}.value END)`;
}

/** A chunk's heading trail (a JSON array of strings in the column) as text. */
function headingText(row: string): string {
  return `COALESCE((SELECT group_concat(j.value, ' / ') FROM json_each(CASE WHEN json_valid(${row}.heading_path) THEN ${row}.heading_path ELSE '[]' END) j), '')`;
}
