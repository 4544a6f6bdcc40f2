import type { Migration } from '../../sqlite.js';

/**
 * What a compile needs to copy the facts unchanged since the live version's compile, as 0015 and
 * 0016 did for chunks and entities (docs/publishing.md "A compile of what changed"):
 * fact_candidates.seq, the write sequence of the transaction that inserted or re-ranked the row
 * (setFactRank). A fact is unchanged when none of its candidates is newer than the compile: a
 * candidate taken out leaves the survivor as it was, or re-ranks the one that takes its place.
 */
export const migration: Migration = {
  version: 17,
  name: 'fact tracking',
  up: (db) => {
    db.exec(`ALTER TABLE fact_candidates ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;`);
  },
};
