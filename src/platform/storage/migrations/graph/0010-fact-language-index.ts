import type { Migration } from '../../sqlite.js';

/**
 * fact_candidates' language index holds the language only, instead of the compiler's whole read
 * order (language, fact id, rank, item key, ordinal: migration 0008). Fact ids are hashes, so each
 * new row's entry in the wide index landed on a page of its own: it was the costliest B-tree of
 * content.ingest, about 10 % of bench/graph's wall time (1,829 against 1,643 ms for 5,000 items
 * without it). Entries of (language) are written in rowid order, at the end of their language's
 * range. The compiler now reads a language's facts in rowid order and sorts them, which is faster
 * than the wide index's presorted read with its table lookups in hash order: 110,000 candidates
 * in 434 against 552 ms through a compile's connection (bench/fact-read.mjs; docs/graph.md "Throughput").
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
