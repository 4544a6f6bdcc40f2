import type { Migration } from '../../sqlite.js';

/**
 * The entity merge order with importance (docs/graph.md "Merge rules": among equal contributors
 * the entity's own page wins) and the most specific type (src/ingest/extract/identity.ts), read from
 * indexes: without them each write sorted or scanned every contributor of a shared entity (a
 * brand, an author: one row per item naming it), a cost growing with the website.
 * entity_contributors_specific_type holds only contributors that state a type below a family
 * root; its WHERE must stay the text of the query in src/ingest/graph/statements.ts (upsertEntities) for
 * SQLite to use it.
 */
export const migration: Migration = {
  version: 5,
  name: 'entity contributor order',
  up: (db) => {
    db.exec(`
      DROP INDEX entity_contributors_best;
      CREATE INDEX entity_contributors_best ON entity_contributors(entity_id, language_rank, provenance_rank, confidence DESC, importance DESC, item_key);
      CREATE INDEX entity_contributors_specific_type ON entity_contributors(entity_id, language_rank, provenance_rank, confidence DESC, importance DESC, item_key)
        WHERE type NOT IN ('Event', 'Place', 'Organization', 'Person', 'Product');
    `);
  },
};
