import { afterEach, describe, expect, it } from 'vitest';
import { createOrganization } from '../../../src/control/records/organizations.js';
import { createUser } from '../../../src/control/records/users.js';
import { openControlDb } from '../../../src/platform/storage/control.js';
import { dataDirLayout } from '../../../src/platform/storage/data-dir.js';
import type { Db } from '../../../src/platform/storage/sqlite.js';
import { addToCounter, readCounter } from '../../../src/platform/storage/usage-counters.js';
import { makeTempDir } from '../../helpers/paths.js';
import { createTestDatabase } from '../../helpers/postgres.js';
import { hashOnce } from '../../helpers/seed.js';

/**
 * The usage counters (src/platform/storage/usage-counters.ts) on the control Db of both stores:
 * control.sqlite and PostgreSQL, where two daemons, each with its own connection, count into the
 * same totals. Counts are kept for an organization that exists.
 */
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A function opening another connection to one fresh store, and the id of an organization in it. */
async function store(kind: 'sqlite' | 'postgres'): Promise<{ connect: () => Db; org: string }> {
  const temp = makeTempDir('nodectl-usage-');
  cleanups.push(() => temp.cleanup());
  const url = kind === 'postgres' ? await createTestDatabase() : undefined;
  const connect = () => {
    const db = openControlDb(dataDirLayout(temp.dir), url);
    cleanups.push(() => db.close());
    return db;
  };
  const db = connect();
  await createUser(db, { email: 'owner@example.com', password: 'correct-horse-battery' }, 0, hashOnce);
  const org = createOrganization(db, { name: 'Org', ownerEmail: 'owner@example.com', plan: 'pro' }, 0).id;
  return { connect, org };
}

describe.each(['sqlite', 'postgres'] as const)('%s usage counters', (kind) => {
  it('add per organization, metric and period, and read 0 for nothing counted', async () => {
    const { connect, org } = await store(kind);
    const db = connect();
    expect(readCounter(db, org, 'items_ingested', '2026-03')).toBe(0);
    addToCounter(db, org, 'items_ingested', '2026-03', 5);
    addToCounter(db, org, 'items_ingested', '2026-03', 2);
    addToCounter(db, org, 'items_ingested', '2026-04', 1);
    addToCounter(db, org, 'api_requests', '2026-03', 3);
    expect(readCounter(db, org, 'items_ingested', '2026-03')).toBe(7);
    expect(readCounter(db, org, 'items_ingested', '2026-04')).toBe(1);
    expect(readCounter(db, org, 'api_requests', '2026-03')).toBe(3);
  });

  it('two connections (two daemons) add to, and read, the same totals', async () => {
    const { connect, org } = await store(kind);
    const [a, b] = [connect(), connect()];
    for (let i = 0; i < 10; i++) addToCounter(i % 2 ? a : b, org, 'node_reads', '2026-03', 1);
    expect(readCounter(a, org, 'node_reads', '2026-03')).toBe(10);
    expect(readCounter(b, org, 'node_reads', '2026-03')).toBe(10);
  });
});
