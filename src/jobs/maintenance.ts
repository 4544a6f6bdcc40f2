import type { Db } from '../storage/sqlite.js';

/** Deletes expired nonces, idempotency records and publish locks. Returns rows removed per table. */
export function expireControlRecords(db: Db, now: number): Record<string, number> {
  const nowMs = now;
  return {
    nonces: db.prepare('DELETE FROM nonces WHERE expires_at < ?').run(nowMs).changes,
    idempotency: db.prepare(`DELETE FROM idempotency WHERE expires_at < ? AND state = 'completed'`).run(nowMs).changes,
    publishLocks: db.prepare('DELETE FROM publish_locks WHERE expires_at < ?').run(now).changes,
  };
}
