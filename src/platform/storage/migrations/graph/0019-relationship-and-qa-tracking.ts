import type { Migration } from '../../sqlite.js';

/**
 * What a compile needs to copy the relationships and Q&A unchanged since the live version's
 * compile, as 0015 to 0017 did for chunks, entities and facts (docs/publishing.md "A compile of
 * what changed"): relationships.seq, the write sequence of the transaction that upserted or
 * re-resolved the row, and qa.seq, that of the transaction that inserted the row, changed its
 * staleness, or deleted another row of its id (qa_sibling_gone: the row that is read for an id
 * may then be another one). Rows older than this version have 0: a state made before it was made
 * by other code, whose context key no compile of this code uses.
 */
export const migration: Migration = {
  version: 19,
  name: 'relationship and qa tracking',
  up: (db) => {
    db.exec(`
      ALTER TABLE relationships ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE qa ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
      CREATE TRIGGER qa_sibling_gone AFTER DELETE ON qa BEGIN
        UPDATE qa SET seq = (SELECT seq FROM graph_state WHERE id = 1) WHERE id = old.id;
      END;
    `);
  },
};
