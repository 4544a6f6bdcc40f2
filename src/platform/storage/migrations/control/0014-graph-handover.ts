import type { Migration } from '../../sqlite.js';

/**
 * How a website's graph moves between daemons sharing a control store (issue 41 item 3,
 * docs/scaling.md "One writer per website"):
 * - website_leases.address: where the holder takes ingest forwarded by the other daemons;
 * - ingest_journal: what the holder acknowledged (accepted items, deletes), in order, kept until a
 *   graph snapshot holds it, so a new holder replays it onto that snapshot;
 * - graph_snapshots: the latest snapshot of each website's graph in the publish target, and the
 *   journal position it holds.
 * Written only when the control store is PostgreSQL; control.sqlite has the tables so that both
 * stores keep one schema.
 */
export const migration: Migration = {
  version: 14,
  name: 'graph handover',
  up: (db) => {
    db.exec(`
      ALTER TABLE website_leases ADD COLUMN address TEXT;
      CREATE TABLE ingest_journal (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        website_id TEXT NOT NULL,
        token INTEGER NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('items', 'delete')),
        body TEXT NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX ingest_journal_by_website ON ingest_journal (website_id, seq);
      CREATE TABLE graph_snapshots (
        website_id TEXT PRIMARY KEY,
        object_key TEXT NOT NULL,
        journal_seq INTEGER NOT NULL,
        token INTEGER NOT NULL,
        bytes INTEGER NOT NULL,
        created_at INTEGER NOT NULL
      );
    `);
  },
};
