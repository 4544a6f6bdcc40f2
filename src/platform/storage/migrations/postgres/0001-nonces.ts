import type { PostgresMigration } from '../../postgres.js';

/** X-Nonce replay guard of signed ingest (as control.sqlite's nonces): times are ms since the epoch. */
export const migration: PostgresMigration = {
  version: 1,
  name: 'nonces',
  sql: `
    CREATE TABLE nonces (
      scope TEXT NOT NULL,
      nonce TEXT NOT NULL,
      expires_at BIGINT NOT NULL,
      PRIMARY KEY (scope, nonce)
    );
    CREATE INDEX nonces_expiry ON nonces (expires_at);
  `,
};
