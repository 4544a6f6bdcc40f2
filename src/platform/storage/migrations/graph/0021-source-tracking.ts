import type { Migration } from '../../sqlite.js';

/**
 * What a compile needs to copy the sources unchanged since the live version's compile, as 0015 to
 * 0019 did for the records (docs/publishing.md "A compile of what changed"): sources.seq, the
 * write sequence of the transaction that upserted the row or set its trust (a trust refresh
 * raises the sequence first). Rows older than this version have 0: a state made before it was
 * made by other code, whose context key no compile of this code uses.
 */
export const migration: Migration = {
  version: 21,
  name: 'source tracking',
  up: (db) => {
    db.exec(`ALTER TABLE sources ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;`);
  },
};
