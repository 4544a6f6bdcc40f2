import { afterEach, describe, expect, it } from 'vitest';
import { deleteOrganizationSharedState } from '../../../src/control/organizations/erase-rows.js';
import { expireSharedRecords } from '../../../src/control/records/expire-job.js';
import { prunePostgresRateLimits } from '../../../src/platform/http/rate-limit-postgres.js';
import { openPostgresControlStore } from '../../../src/platform/storage/postgres-control.js';
import type { PostgresStore } from '../../../src/platform/storage/postgres.js';
import { createTestDatabase } from '../../helpers/postgres.js';

/**
 * The shared request state in a PostgreSQL control store leaves with an erased organization
 * (erase-rows.ts deleteOrganizationSharedState), and the expiry and prune jobs clear it as they do
 * control.sqlite's. On a real server.
 */
let store: PostgresStore;
afterEach(async () => {
  await store?.close();
});

async function seed(): Promise<PostgresStore> {
  store = openPostgresControlStore(await createTestDatabase());
  const rows: Array<[string, unknown[]]> = [
    ['INSERT INTO nonces VALUES ($1, $2, $3)', ['con_gone', 'n1', 10]],
    ['INSERT INTO nonces VALUES ($1, $2, $3)', ['con_gone', 'n2', 1_000]],
    ['INSERT INTO nonces VALUES ($1, $2, $3)', ['con_kept', 'n1', 10]],
    [`INSERT INTO idempotency VALUES ($1, $2, 'sha', 'completed', 200, '{}', 0, $3, NULL)`, ['con_gone', 'k1', 10]],
    [
      `INSERT INTO idempotency VALUES ($1, $2, 'sha', 'in_flight', NULL, NULL, 0, $3, 'host:1:A')`,
      ['con_kept', 'k2', 10],
    ],
    [`INSERT INTO idempotency VALUES ($1, $2, 'sha', 'completed', 200, '{}', 0, $3, NULL)`, ['con_kept', 'k3', 10]],
    ['INSERT INTO rate_limits VALUES ($1, $2, $3)', ['usage:org_gone', 0, 4]],
    ['INSERT INTO rate_limits VALUES ($1, $2, $3)', ['ingest:con_kept', 0, 4]],
    ['INSERT INTO rate_limits VALUES ($1, $2, $3)', ['ingest:con_kept', 7_200_000, 1]],
    [`INSERT INTO usage_counters VALUES ($1, 'items_ingested', '2026-03', 5)`, ['org_gone']],
    [`INSERT INTO usage_counters VALUES ($1, 'items_ingested', '2026-03', 5)`, ['org_kept']],
    [`INSERT INTO website_leases VALUES ($1, 'host:1:A', 1, 0, 30000)`, ['web_gone']],
    [`INSERT INTO website_leases VALUES ($1, 'host:1:A', 1, 0, 30000)`, ['web_kept']],
  ];
  for (const [sql, params] of rows) await store.query(sql, params);
  return store;
}

const all = async (sql: string) => (await store.query(sql)).rows;

describe('the shared request state in PostgreSQL', () => {
  it("leaves with an erased organization: its connectors' nonces and records, counters naming its ids, its usage, its leases", async () => {
    await seed();
    const ids = {
      organizationId: 'org_gone',
      websiteIds: ['web_gone'],
      connectorIds: ['con_gone'],
      needles: ['org_gone', 'web_gone', 'con_gone'],
    };
    await deleteOrganizationSharedState(store, ids);
    await deleteOrganizationSharedState(store, ids); // again after a failed job: nothing more goes
    expect(await all('SELECT scope FROM nonces')).toEqual([{ scope: 'con_kept' }]);
    expect(await all('SELECT connector_id AS c FROM idempotency ORDER BY idempotency_key')).toEqual([
      { c: 'con_kept' },
      { c: 'con_kept' },
    ]);
    expect(await all('SELECT DISTINCT bucket FROM rate_limits')).toEqual([{ bucket: 'ingest:con_kept' }]);
    expect(await all('SELECT organization_id AS o FROM usage_counters')).toEqual([{ o: 'org_kept' }]);
    expect(await all('SELECT website_id AS w FROM website_leases')).toEqual([{ w: 'web_kept' }]);
  });

  it('expires nonces and completed records past their time, keeps in-flight ones; prunes ended windows', async () => {
    await seed();
    expect(await expireSharedRecords(store, 100)).toEqual({ nonces: 2, idempotency: 2 });
    expect(await all('SELECT nonce FROM nonces')).toEqual([{ nonce: 'n2' }]);
    expect(await all('SELECT idempotency_key AS k FROM idempotency')).toEqual([{ k: 'k2' }]);
    expect(await prunePostgresRateLimits(store, 3_600_000)).toBe(2);
    expect(await all('SELECT window_start FROM rate_limits')).toEqual([{ window_start: '7200000' }]);
  });
});
