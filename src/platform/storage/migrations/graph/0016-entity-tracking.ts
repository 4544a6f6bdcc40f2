import type { Migration } from '../../sqlite.js';

/**
 * What a compile needs to copy the entities unchanged since the live version's compile, as 0015
 * did for chunks (docs/publishing.md "A compile of what changed"): entities.seq, the write
 * sequence of the transaction that last wrote the row (the recompute rewrites every entity an
 * item names), and graph_state.editorial, raised by every write to the editorial table, whose
 * hidden flags the entity reads join and whose hidden facts take attributes out of entities.
 */
export const migration: Migration = {
  version: 16,
  name: 'entity tracking',
  up: (db) => {
    db.exec(`
      ALTER TABLE entities ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE graph_state ADD COLUMN editorial INTEGER NOT NULL DEFAULT 0;
      CREATE TRIGGER editorial_inserted AFTER INSERT ON editorial BEGIN
        UPDATE graph_state SET editorial = editorial + 1 WHERE id = 1;
      END;
      CREATE TRIGGER editorial_updated AFTER UPDATE ON editorial BEGIN
        UPDATE graph_state SET editorial = editorial + 1 WHERE id = 1;
      END;
      CREATE TRIGGER editorial_deleted AFTER DELETE ON editorial BEGIN
        UPDATE graph_state SET editorial = editorial + 1 WHERE id = 1;
      END;
    `);
  },
};
