import type { Migration } from '../../sqlite.js';

/**
 * Fewer index entries keyed by a hash (issue 40 item 1; docs/graph.md "Random keys cost WAL").
 * Record ids are hashes, so once an index outgrows a write transaction each new entry dirties a
 * page of its own, which the commit writes to the WAL and a checkpoint writes again: the writer's
 * cost per page grew with the graph. Every query of the graph was checked with EXPLAIN QUERY PLAN
 * (docs/graph.md); these indexes held entries no query needs in that order:
 *
 * - The primary keys of entity_contributors and relationship_contributors: every lookup goes
 *   through their `_best` index, which starts with the same id and ends with the item key. The
 *   writers never insert a (record id, item key) twice (contribution-rows.ts merges duplicates),
 *   so the tables are made again without them, rowids kept.
 * - entities', relationships', chunks' and qa's `(language, id)` indexes: only the compiler's
 *   reader reads a language in id order; it now reads the `(language)` index, whose entries append
 *   in rowid order, and sorts, as fact_candidates has since migration 0010.
 * - item_contributions_by_entity: no query reads it.
 */
export const migration: Migration = {
  version: 13,
  name: 'fewer hashed indexes',
  up: (db) => {
    db.exec(`
      DROP INDEX item_contributions_by_entity;

      DROP INDEX entities_by_language;
      CREATE INDEX entities_by_language ON entities(language);
      DROP INDEX relationships_by_language;
      CREATE INDEX relationships_by_language ON relationships(language);
      DROP INDEX chunks_by_language;
      CREATE INDEX chunks_by_language ON chunks(language);
      DROP INDEX qa_by_language;
      CREATE INDEX qa_by_language ON qa(language);

      CREATE TABLE entity_contributors_new (
        entity_id TEXT NOT NULL,
        item_key TEXT NOT NULL,
        type TEXT NOT NULL,
        canonical_key TEXT NOT NULL,
        name TEXT NOT NULL,
        language TEXT NOT NULL,
        language_rank INTEGER NOT NULL,
        confidence REAL NOT NULL,
        provenance_method TEXT NOT NULL,
        provenance_rank INTEGER NOT NULL,
        importance INTEGER NOT NULL,
        attributes TEXT NOT NULL,
        source_id TEXT,
        source_url TEXT
      );
      INSERT INTO entity_contributors_new (rowid, entity_id, item_key, type, canonical_key, name, language, language_rank, confidence,
          provenance_method, provenance_rank, importance, attributes, source_id, source_url)
        SELECT rowid, entity_id, item_key, type, canonical_key, name, language, language_rank, confidence,
          provenance_method, provenance_rank, importance, attributes, source_id, source_url
        FROM entity_contributors ORDER BY rowid;
      DROP TABLE entity_contributors;
      ALTER TABLE entity_contributors_new RENAME TO entity_contributors;
      CREATE INDEX entity_contributors_best ON entity_contributors(entity_id, language_rank, provenance_rank, confidence DESC, importance DESC, item_key);
      CREATE INDEX entity_contributors_specific_type ON entity_contributors(entity_id, language_rank, provenance_rank, confidence DESC, importance DESC, item_key)
        WHERE type NOT IN ('Event', 'Place', 'Organization', 'Person', 'Product');
      CREATE INDEX entity_contributors_importance ON entity_contributors(entity_id, importance);
      CREATE INDEX entity_contributors_by_item ON entity_contributors(item_key);

      CREATE TABLE relationship_contributors_new (
        rel_id TEXT NOT NULL,
        item_key TEXT NOT NULL,
        type TEXT NOT NULL,
        from_entity_id TEXT NOT NULL,
        to_ref TEXT NOT NULL,
        to_type TEXT NOT NULL,
        to_canonical_key TEXT NOT NULL,
        language TEXT NOT NULL,
        language_rank INTEGER NOT NULL,
        confidence REAL NOT NULL,
        provenance_method TEXT NOT NULL,
        provenance_rank INTEGER NOT NULL,
        source_id TEXT,
        source_url TEXT
      );
      INSERT INTO relationship_contributors_new (rowid, rel_id, item_key, type, from_entity_id, to_ref, to_type, to_canonical_key, language,
          language_rank, confidence, provenance_method, provenance_rank, source_id, source_url)
        SELECT rowid, rel_id, item_key, type, from_entity_id, to_ref, to_type, to_canonical_key, language,
          language_rank, confidence, provenance_method, provenance_rank, source_id, source_url
        FROM relationship_contributors ORDER BY rowid;
      DROP TABLE relationship_contributors;
      ALTER TABLE relationship_contributors_new RENAME TO relationship_contributors;
      CREATE INDEX relationship_contributors_best ON relationship_contributors(rel_id, language_rank, provenance_rank, confidence DESC, item_key);
      CREATE INDEX relationship_contributors_by_item ON relationship_contributors(item_key);
    `);
  },
};
