import type { Migration } from '../../sqlite.js';

/**
 * fact_candidates' language index holds the language only, instead of the compiler's whole read
 * order (language, fact id, rank, item key, ordinal: migration 0008). Fact ids are hashes, so each
 * new row's entry in the wide index landed on a page of its own: it was the costliest B-tree of
 * content.ingest, about 10 % of bench/graph's wall time (1,829 against 1,643 ms for 5,000 items
 * without it). Entries of (language) are written in rowid order, at the end of their language's
 * range. The compiler now sorts a language's facts in memory after reading them in rowid order:
 * 110,000 facts read in 427 ms against 395 ms straight off the wide index, so a publish pays
 * less than a tenth of what ingest saves (docs/graph.md "Throughput").
 */
export const migration: Migration = {
  version: 10,
  name: 'fact language index',
  up: (db) => {
    db.exec(`
      DROP INDEX fact_candidates_by_language;
      CREATE INDEX fact_candidates_by_language ON fact_candidates(language);
    `);
  },
};
