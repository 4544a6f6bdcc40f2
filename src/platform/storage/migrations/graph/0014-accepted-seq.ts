import type { Migration } from '../../sqlite.js';

/**
 * Which inbox row each raw_items row came from (src/ingest/graph/inbox.ts): the inbox numbers the
 * versions it accepts in order, and a move keeps a row only over an older one, so moving a row
 * twice, or an older version after a newer one, changes nothing, whatever the clock said. NULL
 * for rows written otherwise (before this version, a replayed journal, a fixture build): older
 * than anything the inbox holds.
 */
export const migration: Migration = {
  version: 14,
  name: 'accepted seq',
  up: (db) => {
    db.exec(`ALTER TABLE raw_items ADD COLUMN accepted_seq INTEGER;`);
  },
};
