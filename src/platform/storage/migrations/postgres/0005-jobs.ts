import type { PostgresMigration } from '../../postgres.js';

/**
 * The job queue (as control.sqlite's jobs, migrations 0001, 0008, 0012): any daemon claims from it
 * with FOR UPDATE SKIP LOCKED. Ids sort bytewise (COLLATE "C"), as SQLite's do, so listings page
 * the same; the payload stays JSON text, read back exactly as written.
 */
export const migration: PostgresMigration = {
  version: 5,
  name: 'jobs',
  sql: `
    CREATE TABLE jobs (
      id TEXT COLLATE "C" PRIMARY KEY,
      kind TEXT NOT NULL,
      payload TEXT NOT NULL,
      state TEXT NOT NULL CHECK (state IN ('queued','running','succeeded','dead')),
      attempts INTEGER NOT NULL DEFAULT 0,
      max_attempts INTEGER NOT NULL,
      run_at BIGINT NOT NULL,
      lease_owner TEXT,
      lease_until BIGINT,
      last_error TEXT,
      dedupe_key TEXT,
      item_errors TEXT,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL
    );
    CREATE INDEX jobs_due ON jobs (state, run_at);
    CREATE UNIQUE INDEX jobs_dedupe ON jobs (dedupe_key) WHERE dedupe_key IS NOT NULL AND state IN ('queued','running');
    CREATE INDEX jobs_website ON jobs (((payload::jsonb) ->> 'website_id'), created_at, id);
  `,
};
