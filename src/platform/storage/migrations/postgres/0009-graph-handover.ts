import type { PostgresMigration } from '../../postgres.js';

/** As control.sqlite's migration 14: the lease holder's address, the ingest journal, the graph snapshots. */
export const migration: PostgresMigration = {
  version: 9,
  name: 'graph-handover',
  sql: `
    ALTER TABLE website_leases ADD COLUMN address TEXT;
    CREATE TABLE ingest_journal (
      seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      website_id TEXT COLLATE "C" NOT NULL,
      token BIGINT NOT NULL,
      kind TEXT NOT NULL CHECK (kind IN ('items', 'delete')),
      body TEXT NOT NULL,
      created_at BIGINT NOT NULL
    );
    CREATE INDEX ingest_journal_by_website ON ingest_journal (website_id, seq);
    CREATE TABLE graph_snapshots (
      website_id TEXT COLLATE "C" PRIMARY KEY,
      object_key TEXT NOT NULL,
      journal_seq BIGINT NOT NULL,
      token BIGINT NOT NULL,
      bytes BIGINT NOT NULL,
      created_at BIGINT NOT NULL
    );
  `,
};
