import type { Migration } from '../../sqlite.js';

/**
 * What a compile needs to know which chunks changed since the compile of the live version
 * (docs/publishing.md "A compile of what changed"). graph_state holds the graph's identity and a
 * write sequence that every transaction writing chunks raises (ingest's applyContributionRows) to
 * above both its last value and the clock in milliseconds, so a graph copied back from an older
 * file still numbers its new writes above what a compile saw. chunks.seq is the sequence of the
 * transaction that wrote the row (rows are only ever deleted and inserted, never updated); rows
 * older than this version have 0, older than any compile that reads the sequence.
 */
export const migration: Migration = {
  version: 15,
  name: 'compile tracking',
  up: (db) => {
    db.exec(`
      CREATE TABLE graph_state (id INTEGER PRIMARY KEY CHECK (id = 1), graph_id TEXT NOT NULL, seq INTEGER NOT NULL);
      INSERT INTO graph_state (id, graph_id, seq) VALUES (1, lower(hex(randomblob(16))), 0);
      ALTER TABLE chunks ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
    `);
  },
};
