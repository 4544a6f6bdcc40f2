import type { Migration } from '../../sqlite.js';

/**
 * The keyed hashes of a connector's rotated-away secrets, with their token version, so the ingest
 * verifier can tell a stale token (401 auth.token_revoked, SPEC server verification step 4) from a
 * wrong secret. rotateConnector keeps the newest few (docs/decisions.md); deleting the connector,
 * its website or its organization removes them.
 */
export const migration: Migration = {
  version: 10,
  name: 'retired connector secrets',
  up: (db) => {
    db.exec(`
      CREATE TABLE retired_connector_secrets (
        connector_id TEXT NOT NULL REFERENCES connectors(id) ON DELETE CASCADE,
        token_version INTEGER NOT NULL,
        secret_hash TEXT NOT NULL,
        retired_at INTEGER NOT NULL,
        PRIMARY KEY (connector_id, token_version)
      ) WITHOUT ROWID;
    `);
  },
};
