import { z } from 'zod';
import type { Db, PostgresStore } from '../../platform/storage/index.js';
import { defineJob } from '../../platform/job-runtime/index.js';

/** Deletes expired nonces, completed idempotency records and publish locks. Returns rows removed per table. */
export function expireControlRecords(db: Db, now: number): Record<string, number> {
  return {
    nonces: db.prepare('DELETE FROM nonces WHERE expires_at < ?').run(now).changes,
    idempotency: db.prepare(`DELETE FROM idempotency WHERE expires_at < ? AND state = 'completed'`).run(now).changes,
    publishLocks: db.prepare('DELETE FROM publish_locks WHERE expires_at < ?').run(now).changes,
  };
}

/** The same for the shared request state in the PostgreSQL control store (controlStore = postgres://...). */
export async function expireSharedRecords(store: PostgresStore, now: number): Promise<Record<string, number>> {
  return {
    nonces: (await store.query('DELETE FROM nonces WHERE expires_at < $1', [now])).rowCount,
    idempotency: (await store.query(`DELETE FROM idempotency WHERE expires_at < $1 AND state = 'completed'`, [now]))
      .rowCount,
  };
}

export const maintenanceExpireJob = defineJob({
  kind: 'maintenance.expire',
  lane: 'maintenance',
  payload: z.object({}),
  schedule: { intervalSeconds: 300 },
  handler: async (_payload, { services }) => {
    expireControlRecords(services.controlDb, services.now());
    if (services.postgres) await expireSharedRecords(services.postgres, services.now());
  },
});
