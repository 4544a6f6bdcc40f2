import type { PostgresQuery, PostgresStore } from '../../../platform/storage/index.js';
import type { IdempotencyBegin, IdempotencyStore, InFlightLease, NonceStore } from './types.js';

/**
 * Nonces in the PostgreSQL control store (table nonces, migration 0001): one statement, as the
 * SQLite store's: insert, or revive an expired row; a row returned means the nonce was claimed.
 * Every daemon sharing the database sees the same nonces. A commit is durable when it resolves
 * (synchronous_commit), so there is no flush().
 */
export function createPostgresNonceStore(store: PostgresStore): NonceStore {
  return {
    async claim(scope, nonce, nowMs, ttlMs) {
      const { rowCount } = await store.query(
        `INSERT INTO nonces (scope, nonce, expires_at) VALUES ($1, $2, $3)
         ON CONFLICT (scope, nonce) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE nonces.expires_at < $4
         RETURNING 1`,
        [scope, nonce, nowMs + ttlMs, nowMs],
      );
      return rowCount === 1;
    },
  };
}

interface IdempotencyRow {
  body_sha256: string;
  state: 'in_flight' | 'completed';
  status_code: number | null;
  response: string | null;
  expires_at: string; // BIGINT arrives as text
  owner: string | null;
}

/**
 * The decision of IdempotencyStore.begin in one transaction: insert the in-flight record if the
 * key is new (a concurrent insert of the same key waits for the other's commit, then inserts
 * nothing); otherwise lock the row and decide as the SQLite store does.
 */
async function begin(
  query: PostgresQuery,
  [scope, key, bodySha256, nowMs, lease]: [string, string, string, number, InFlightLease],
): Promise<IdempotencyBegin> {
  const inserted = await query(
    `INSERT INTO idempotency (connector_id, idempotency_key, body_sha256, state, status_code, response, created_at, expires_at, owner)
     VALUES ($1, $2, $3, 'in_flight', NULL, NULL, $4, $5, $6) ON CONFLICT (connector_id, idempotency_key) DO NOTHING RETURNING 1`,
    [scope, key, bodySha256, nowMs, nowMs + lease.ttlMs, lease.owner],
  );
  if (inserted.rowCount === 1) return { outcome: 'started' };
  const { rows } = await query<IdempotencyRow>(
    `SELECT body_sha256, state, status_code, response, expires_at, owner FROM idempotency
     WHERE connector_id = $1 AND idempotency_key = $2 FOR UPDATE`,
    [scope, key],
  );
  const row = rows[0];
  const abandoned = row?.state === 'in_flight' && row.owner !== null && lease.isOwnerGone(row.owner);
  if (row && Number(row.expires_at) >= nowMs && !abandoned) {
    if (row.body_sha256 !== bodySha256) return { outcome: 'conflict' };
    if (row.state === 'in_flight') return { outcome: 'in_flight' };
    return { outcome: 'replay', statusCode: row.status_code ?? 200, response: row.response ?? '' };
  }
  // Expired or abandoned (or deleted between the two statements): start afresh.
  await query(
    `INSERT INTO idempotency (connector_id, idempotency_key, body_sha256, state, status_code, response, created_at, expires_at, owner)
     VALUES ($1, $2, $3, 'in_flight', NULL, NULL, $4, $5, $6)
     ON CONFLICT (connector_id, idempotency_key) DO UPDATE SET body_sha256 = EXCLUDED.body_sha256, state = 'in_flight',
       status_code = NULL, response = NULL, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at, owner = EXCLUDED.owner`,
    [scope, key, bodySha256, nowMs, nowMs + lease.ttlMs, lease.owner],
  );
  return { outcome: 'started' };
}

/** Idempotency records in the PostgreSQL control store (table idempotency, migration 0002). */
export function createPostgresIdempotencyStore(store: PostgresStore): IdempotencyStore {
  return {
    begin: (scope, key, bodySha256, nowMs, lease) =>
      store.transaction((query) => begin(query, [scope, key, bodySha256, nowMs, lease])),
    async complete(scope, key, statusCode, response, nowMs, ttlMs) {
      await store.query(
        `UPDATE idempotency SET state = 'completed', status_code = $1, response = $2, expires_at = $3, owner = NULL
         WHERE connector_id = $4 AND idempotency_key = $5`,
        [statusCode, response, nowMs + ttlMs, scope, key],
      );
    },
    async release(scope, key) {
      await store.query(
        `DELETE FROM idempotency WHERE connector_id = $1 AND idempotency_key = $2 AND state = 'in_flight'`,
        [scope, key],
      );
    },
    async releaseAbandoned(isOwnerGone) {
      // Only this host's owners can be judged (in-flight-owner.ts): another daemon's records lapse with their lease.
      const { rows } = await store.query<{ connector_id: string; idempotency_key: string; owner: string }>(
        `SELECT connector_id, idempotency_key, owner FROM idempotency WHERE state = 'in_flight' AND owner IS NOT NULL`,
      );
      let released = 0;
      for (const row of rows)
        if (isOwnerGone(row.owner))
          released += (
            await store.query(
              `DELETE FROM idempotency WHERE connector_id = $1 AND idempotency_key = $2 AND state = 'in_flight' AND owner = $3`,
              [row.connector_id, row.idempotency_key, row.owner],
            )
          ).rowCount;
      return released;
    },
  };
}
