import type { PostgresMigration } from '../../postgres.js';

/** Idempotency-Key records of signed ingest (as control.sqlite's idempotency, owner included). */
export const migration: PostgresMigration = {
  version: 2,
  name: 'idempotency',
  sql: `
    CREATE TABLE idempotency (
      connector_id TEXT NOT NULL,
      idempotency_key TEXT NOT NULL,
      body_sha256 TEXT NOT NULL,
      state TEXT NOT NULL CHECK (state IN ('in_flight', 'completed')),
      status_code INTEGER,
      response TEXT,
      created_at BIGINT NOT NULL,
      expires_at BIGINT NOT NULL,
      owner TEXT,
      PRIMARY KEY (connector_id, idempotency_key)
    );
    CREATE INDEX idempotency_expiry ON idempotency (expires_at);
  `,
};
