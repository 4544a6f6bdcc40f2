import type { Db } from '../../storage/sqlite.js';
import type { IdempotencyBegin, IdempotencyStore, NonceStore } from './types.js';

/** Nonces in control.sqlite (table nonces). One statement: insert, or revive an expired row. */
export function createSqliteNonceStore(db: Db): NonceStore {
  const claim = db.prepare(
    `INSERT INTO nonces (scope, nonce, expires_at) VALUES (?, ?, ?)
     ON CONFLICT (scope, nonce) DO UPDATE SET expires_at = excluded.expires_at WHERE nonces.expires_at < ?`,
  );
  return {
    async claim(scope, nonce, nowMs, ttlMs) {
      return claim.run(scope, nonce, nowMs + ttlMs, nowMs).changes === 1;
    },
  };
}

interface IdempotencyRow {
  body_sha256: string;
  state: 'in_flight' | 'completed';
  status_code: number | null;
  response: string | null;
  expires_at: number;
}

/** Idempotency records in control.sqlite (table idempotency), decided inside one IMMEDIATE transaction. */
export function createSqliteIdempotencyStore(db: Db): IdempotencyStore {
  const select = db.prepare('SELECT body_sha256, state, status_code, response, expires_at FROM idempotency WHERE connector_id = ? AND idempotency_key = ?');
  const upsert = db.prepare(
    `INSERT INTO idempotency (connector_id, idempotency_key, body_sha256, state, status_code, response, created_at, expires_at)
     VALUES (?, ?, ?, 'in_flight', NULL, NULL, ?, ?)
     ON CONFLICT (connector_id, idempotency_key) DO UPDATE SET body_sha256 = excluded.body_sha256, state = 'in_flight',
       status_code = NULL, response = NULL, created_at = excluded.created_at, expires_at = excluded.expires_at`,
  );
  const finish = db.prepare(`UPDATE idempotency SET state = 'completed', status_code = ?, response = ?, expires_at = ? WHERE connector_id = ? AND idempotency_key = ?`);
  const remove = db.prepare(`DELETE FROM idempotency WHERE connector_id = ? AND idempotency_key = ? AND state = 'in_flight'`);
  const begin = db.transaction((scope: string, key: string, bodySha256: string, nowMs: number, inFlightTtlMs: number): IdempotencyBegin => {
    const row = select.get(scope, key) as IdempotencyRow | undefined;
    if (row && row.expires_at >= nowMs) {
      if (row.body_sha256 !== bodySha256) return { outcome: 'conflict' };
      if (row.state === 'in_flight') return { outcome: 'in_flight' };
      return { outcome: 'replay', statusCode: row.status_code ?? 200, response: row.response ?? '' };
    }
    upsert.run(scope, key, bodySha256, nowMs, nowMs + inFlightTtlMs);
    return { outcome: 'started' };
  });
  return {
    async begin(scope, key, bodySha256, nowMs, inFlightTtlMs) {
      return begin.immediate(scope, key, bodySha256, nowMs, inFlightTtlMs);
    },
    async complete(scope, key, statusCode, response, nowMs, ttlMs) {
      finish.run(statusCode, response, nowMs + ttlMs, scope, key);
    },
    async release(scope, key) {
      remove.run(scope, key);
    },
  };
}
