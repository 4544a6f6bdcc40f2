import type { Migration } from '../../sqlite.js';

/**
 * fact_candidates' language index holds the language only, instead of the compiler's whole read
 * order (language, fact id, rank, item key, ordinal: migration 0008). Fact ids are hashes, so each
 * new row's entry in the wide index landed on a page of its own: it was the costliest B-tree of
 * content.ingest. Entries of (language) are written in rowid order, at the end of their language's
 * range. The compiler now reads a language's facts in rowid order and sorts them, which is faster
 * than the wide index's presorted read with its table lookups in hash order (bench/graph.mjs and
 * bench/fact-read.mjs; figures: docs/graph.md "Throughput").
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
