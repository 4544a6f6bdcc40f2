import { afterEach, describe, expect, it } from 'vitest';
import { createOrganization } from '../../../src/control/records/organizations.js';
import { createUser } from '../../../src/control/records/users.js';
import { openControlDb } from '../../../src/platform/storage/control.js';
import { dataDirLayout } from '../../../src/platform/storage/data-dir.js';
import { openPostgresControlStore } from '../../../src/platform/storage/postgres-control.js';
import {
  createPostgresUsageCounters,
  createSqliteUsageCounters,
  type UsageCounters,
} from '../../../src/platform/storage/usage-counters-postgres.js';
import { makeTempDir } from '../../helpers/paths.js';
import { createTestDatabase } from '../../helpers/postgres.js';
import { hashOnce } from '../../helpers/seed.js';

/**
 * The usage counters behind one interface (src/platform/storage/usage-counters-postgres.ts): one
 * conformance suite for control.sqlite's and the PostgreSQL control store's, then two daemons
 * sharing one PostgreSQL.
 */
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const STORES: Record<string, () => Promise<{ counters: UsageCounters; org: string }>> = {
  sqlite: async () => {
    const temp = makeTempDir('nodectl-usage-');
    const db = openControlDb(dataDirLayout(temp.dir));
    cleanups.push(
      () => temp.cleanup(),
      () => db.close(),
    );
    // control.sqlite keeps counts only for an organization that exists.
    await createUser(db, { email: 'owner@example.com', password: 'correct-horse-battery' }, 0, hashOnce);
    const org = createOrganization(db, { name: 'Org', ownerEmail: 'owner@example.com', plan: 'pro' }, 0).id;
    return { counters: createSqliteUsageCounters(db), org };
  },
  postgres: async () => {
    const store = openPostgresControlStore(await createTestDatabase());
    cleanups.push(() => store.close());
    return { counters: createPostgresUsageCounters(store), org: 'org_1' };
  },
};

for (const [name, make] of Object.entries(STORES)) {
  describe(`${name} usage counters`, () => {
    it('add per organization, metric and period, return the value after, and read 0 for nothing counted', async () => {
      const { counters, org } = await make();
      expect(await counters.read(org, 'items_ingested', '2026-03')).toBe(0);
      expect(await counters.add(org, 'items_ingested', '2026-03', 5)).toBe(5);
      expect(await counters.add(org, 'items_ingested', '2026-03', 2)).toBe(7);
      expect(await counters.add(org, 'items_ingested', '2026-04', 1)).toBe(1);
      expect(await counters.add(org, 'api_requests', '2026-03', 3)).toBe(3);
      expect(await counters.read(org, 'items_ingested', '2026-03')).toBe(7);
    });

    it('count every one of concurrent adds exactly once', async () => {
      const { counters, org } = await make();
      await Promise.all(Array.from({ length: 30 }, () => counters.add(org, 'api_requests', '2026-03', 2)));
      expect(await counters.read(org, 'api_requests', '2026-03')).toBe(60);
    });
  });
}

describe('postgres usage counters shared by two daemons', () => {
  it('each adds to, and reads, the same totals', async () => {
    const url = await createTestDatabase();
    const [a, b] = [openPostgresControlStore(url), openPostgresControlStore(url)];
    cleanups.push(
      () => a.close(),
      () => b.close(),
    );
    const [ca, cb] = [createPostgresUsageCounters(a), createPostgresUsageCounters(b)];
    await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? ca : cb).add('org_1', 'node_reads', '2026-03', 1)));
    expect(await ca.read('org_1', 'node_reads', '2026-03')).toBe(10);
    expect(await cb.add('org_1', 'node_reads', '2026-03', 1)).toBe(11);
  });
});
