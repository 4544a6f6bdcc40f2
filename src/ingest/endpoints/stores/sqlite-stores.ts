import { commitWithoutSync, syncCommits, type Db } from '../../../platform/storage/index.js';
import type { IdempotencyBegin, IdempotencyStore, InFlightLease, NonceStore } from './types.js';

/**
 * Nonces in control.sqlite (table nonces). One statement: insert, or revive an expired row.
 * Written without an fsync (commitWithoutSync): flush() syncs them, before the answer is sent.
 */
export function createSqliteNonceStore(db: Db): NonceStore {
  const claim = db.prepare(
    `INSERT INTO nonces (scope, nonce, expires_at) VALUES (?, ?, ?)
     ON CONFLICT (scope, nonce) DO UPDATE SET expires_at = excluded.expires_at WHERE nonces.expires_at < ?`,
  );
  return {
    async claim(scope, nonce, nowMs, ttlMs) {
      return commitWithoutSync(
        db,
        () => claim.run(scope, nonce, nowMs + ttlMs, nowMs).changes === 1,
        (claimed) => claimed,
      );
    },
    flush: () => syncCommits(db),
  };
}

interface IdempotencyRow {
  body_sha256: string;
  state: 'in_flight' | 'completed';
  status_code: number | null;
  response: string | null;
  expires_at: number;
  owner: string | null;
}

/**
 * Idempotency records in control.sqlite (table idempotency), decided inside one IMMEDIATE
 * transaction. Written without an fsync (commitWithoutSync): flush() syncs them, before the
 * answer is sent.
 */
export function createSqliteIdempotencyStore(db: Db): IdempotencyStore {
  const select = db.prepare(
    'SELECT body_sha256, state, status_code, response, expires_at, owner FROM idempotency WHERE connector_id = ? AND idempotency_key = ?',
  );
  const upsert = db.prepare(
    `INSERT INTO idempotency (connector_id, idempotency_key, body_sha256, state, status_code, response, created_at, expires_at, owner)
     VALUES (?, ?, ?, 'in_flight', NULL, NULL, ?, ?, ?)
     ON CONFLICT (connector_id, idempotency_key) DO UPDATE SET body_sha256 = excluded.body_sha256, state = 'in_flight',
       status_code = NULL, response = NULL, created_at = excluded.created_at, expires_at = excluded.expires_at, owner = excluded.owner`,
  );
  const finish = db.prepare(
    `UPDATE idempotency SET state = 'completed', status_code = ?, response = ?, expires_at = ?, owner = NULL WHERE connector_id = ? AND idempotency_key = ?`,
  );
  const remove = db.prepare(
    `DELETE FROM idempotency WHERE connector_id = ? AND idempotency_key = ? AND state = 'in_flight'`,
  );
  const inFlightOwners = db.prepare(
    `SELECT connector_id, idempotency_key, owner FROM idempotency WHERE state = 'in_flight' AND owner IS NOT NULL`,
  );
  const removeOwned = db.prepare(
    `DELETE FROM idempotency WHERE connector_id = ? AND idempotency_key = ? AND state = 'in_flight' AND owner = ?`,
  );
  const begin = db.transaction(
    (scope: string, key: string, bodySha256: string, nowMs: number, lease: InFlightLease): IdempotencyBegin => {
      const row = select.get(scope, key) as IdempotencyRow | undefined;
      const abandoned = row?.state === 'in_flight' && row.owner !== null && lease.isOwnerGone(row.owner);
      if (row && row.expires_at >= nowMs && !abandoned) {
        if (row.body_sha256 !== bodySha256) return { outcome: 'conflict' };
        if (row.state === 'in_flight') return { outcome: 'in_flight' };
        return { outcome: 'replay', statusCode: row.status_code ?? 200, response: row.response ?? '' };
      }
      upsert.run(scope, key, bodySha256, nowMs, nowMs + lease.ttlMs, lease.owner);
      return { outcome: 'started' };
    },
  );
  const releaseAbandoned = db.transaction((isOwnerGone: (owner: string) => boolean): number => {
    const rows = inFlightOwners.all() as Array<{ connector_id: string; idempotency_key: string; owner: string }>;
    let released = 0;
    for (const row of rows)
      if (isOwnerGone(row.owner)) released += removeOwned.run(row.connector_id, row.idempotency_key, row.owner).changes;
    return released;
  });
  return {
    async begin(scope, key, bodySha256, nowMs, lease) {
      return commitWithoutSync(
        db,
        () => begin.immediate(scope, key, bodySha256, nowMs, lease),
        (begun) => begun.outcome === 'started',
      );
    },
    async complete(scope, key, statusCode, response, nowMs, ttlMs) {
      commitWithoutSync(db, () => finish.run(statusCode, response, nowMs + ttlMs, scope, key));
    },
    async release(scope, key) {
      commitWithoutSync(db, () => remove.run(scope, key));
    },
    flush: () => syncCommits(db),
    async releaseAbandoned(isOwnerGone) {
      return releaseAbandoned.immediate(isOwnerGone);
    },
  };
}
