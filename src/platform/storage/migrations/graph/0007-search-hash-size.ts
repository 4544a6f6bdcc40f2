import type { Migration } from '../../sqlite.js';

/**
 * FTS5 keeps the terms of the documents a transaction inserts in an in-memory hash and writes
 * them as a new level-0 segment when the transaction commits, or sooner when the hash outgrows
 * its `hashsize` (1 MiB by default). One content.ingest batch (500 pages) passes 1 MiB several
 * times, so each batch left several small segments that automerge then merged again. 16 MiB holds
 * a batch of large pages, so a batch writes one segment, for fewer FTS5 instructions (figures:
 * docs/knowledge.md "Index upkeep"). A setting in FTS5's own config table, stored in
 * the file: nothing is indexed again. Memory: the hash holds one batch's terms until it commits.
 */
export const migration: Migration = {
  version: 7,
  name: 'search hash size',
  up: (db) => {
    // An integer literal: FTS5 rejects a value bound from JavaScript (a REAL) for this setting.
    db.exec(`INSERT INTO search_fts (search_fts, rank) VALUES ('hashsize', ${16 * 1024 * 1024})`);
  },
};
