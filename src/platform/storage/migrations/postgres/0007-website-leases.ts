import type { PostgresMigration } from '../../postgres.js';

/** Which daemon writes a website's graph (as control.sqlite's website_leases): kept after release for its token. */
export const migration: PostgresMigration = {
  version: 7,
  name: 'website-leases',
  sql: `
    CREATE TABLE website_leases (
      website_id TEXT PRIMARY KEY,
      owner TEXT NOT NULL,
      token BIGINT NOT NULL,
      acquired_at BIGINT NOT NULL,
      expires_at BIGINT NOT NULL
    );
    CREATE INDEX website_leases_by_owner ON website_leases (owner, expires_at);
  `,
};
