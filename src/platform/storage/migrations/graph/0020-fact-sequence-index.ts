import type { Migration } from '../../sqlite.js';

/**
 * The fact candidates written after a compile, found by their sequence (fact_candidates.seq,
 * migration 0017) rather than by a scan of the table: a compile of what changed read every
 * candidate twice to find the few written since (docs/publishing.md "A compile of what changed").
 * The sequence only grows, so ingest appends to the index's last page.
 */
export const migration: Migration = {
  version: 20,
  name: 'fact sequence index',
  up: (db) => {
    db.exec(`CREATE INDEX fact_candidates_by_seq ON fact_candidates(seq);`);
  },
};
