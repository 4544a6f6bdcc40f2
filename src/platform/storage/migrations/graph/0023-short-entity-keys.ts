import type { Migration } from '../../sqlite.js';

/**
 * The short keys of 0022 in the other indexes that begin with a hashed id and that a write dirties
 * all over (issue 40 item 1): the entity contributors' three by entity, the relationship
 * contributors' by relationship, relationships by either end, and item_contributions by source.
 * At 100,000 pages a 2,000-page transaction wrote 3,440 WAL frames to them. Only the indexes are
 * made again: their tables keep every row, and the record tables keep their primary keys, which
 * the upserts need (ON CONFLICT(id)). The key expression is written out, as in 0022.
 */
const KEY = (column: string) => `coalesce(unhex(substr(${column}, -24, 16)), ${column})`;

export const migration: Migration = {
  version: 23,
  name: 'short entity keys',
  up: (db) => {
    db.exec(`
      DROP INDEX entity_contributors_best;
      CREATE INDEX entity_contributors_best
        ON entity_contributors(${KEY('entity_id')}, language_rank, provenance_rank, confidence DESC, importance DESC, item_key);
      DROP INDEX entity_contributors_specific_type;
      CREATE INDEX entity_contributors_specific_type
        ON entity_contributors(${KEY('entity_id')}, language_rank, provenance_rank, confidence DESC, importance DESC, item_key)
        WHERE type NOT IN ('Event', 'Place', 'Organization', 'Person', 'Product');
      DROP INDEX entity_contributors_importance;
      CREATE INDEX entity_contributors_importance ON entity_contributors(${KEY('entity_id')}, importance);
      DROP INDEX relationship_contributors_best;
      CREATE INDEX relationship_contributors_best
        ON relationship_contributors(${KEY('rel_id')}, language_rank, provenance_rank, confidence DESC, item_key);
      DROP INDEX relationships_by_from;
      CREATE INDEX relationships_by_from ON relationships(${KEY('from_entity_id')});
      DROP INDEX relationships_by_to;
      CREATE INDEX relationships_by_to ON relationships(${KEY('to_ref')});
      DROP INDEX item_contributions_by_source;
      CREATE INDEX item_contributions_by_source ON item_contributions(${KEY('source_id')}, last_seen_at DESC, item_key);
    `);
  },
};
