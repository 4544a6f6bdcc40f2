import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  GRAPH_JOB_KINDS,
  GraphOwnership,
  ownedGraphJobs,
  type RestoredGraph,
} from '../../../src/ingest/ownership/ownership.js';
import { defineJob, JobDeferredError } from '../../../src/platform/job-runtime/define-job.js';
import { JobQueue } from '../../../src/platform/jobs/queue.js';
import { openControlDb } from '../../../src/platform/storage/control.js';
import { dataDirLayout } from '../../../src/platform/storage/data-dir.js';
import type { Db } from '../../../src/platform/storage/sqlite.js';
import { createWebsiteLeases } from '../../../src/platform/storage/website-leases.js';
import { createOrganization } from '../../../src/control/records/organizations.js';
import { createUser } from '../../../src/control/records/users.js';
import { createWebsite } from '../../../src/control/records/websites.js';
import { makeTempDir } from '../../helpers/paths.js';
import { hashOnce } from '../../helpers/seed.js';
import { createTestDatabase } from '../../helpers/postgres.js';

/**
 * One writer per website's graph (src/ingest/ownership): leases taken, renewed, lost and adopted;
 * the graph job kinds claimed by the writer only. Each "daemon" is its own connection to one
 * control store, on control.sqlite and on PostgreSQL; the clock is a number the test moves.
 */
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const T0 = 1_700_000_000_000;
const LEASE_MS = 30_000;
const WEB = 'web_01JHKAB5P8S0T4W6X8Z0B2E4G6';
let clock = T0;
const now = () => clock;

const STORES: Array<{ name: string; open: () => Promise<() => Db> }> = [
  {
    name: 'sqlite',
    open: async () => {
      const temp = makeTempDir('nodectl-ownership-');
      cleanups.push(() => temp.cleanup());
      return () => {
        const db = openControlDb(dataDirLayout(temp.dir));
        cleanups.push(() => db.close());
        return db;
      };
    },
  },
  {
    name: 'postgres',
    open: async () => {
      const url = await createTestDatabase();
      const temp = makeTempDir('nodectl-ownership-');
      cleanups.push(() => temp.cleanup());
      return () => {
        const db = openControlDb(dataDirLayout(temp.dir), url);
        cleanups.push(() => db.close());
        return db;
      };
    },
  },
];

/** A daemon's ownership over `db`, with a handover that records what it was asked. */
function daemon(db: Db, address: string, restored: RestoredGraph = { rawContentIds: [], removed: [] }) {
  const calls = { restores: [] as number[], snapshots: [] as number[], released: [] as string[] };
  const ownership = new GraphOwnership({
    controlDb: db,
    jobs: new JobQueue(db, { now }),
    logger: { info() {}, warn() {}, error() {}, debug() {} } as never,
    now,
    leaseMs: LEASE_MS,
    address: () => address,
    release: (websiteId) => calls.released.push(websiteId),
    handover: {
      restore: async (_websiteId, token) => (calls.restores.push(token), restored),
      snapshot: (_websiteId, token) => void calls.snapshots.push(token),
      idle: async () => {},
    },
  });
  return { ownership, calls };
}

/** A website (adoption skips the ids of deleted websites); returns its id. */
async function insertWebsite(db: Db): Promise<string> {
  await createUser(db, { email: 'owner@example.com', password: 'correct-horse-battery' }, T0, hashOnce);
  const organization = createOrganization(db, { name: 'O', ownerEmail: 'owner@example.com', plan: 'pro' }, T0);
  return createWebsite(db, { organizationId: organization.id, domain: 'example.com', name: 'E' }, T0).id;
}

describe.each(STORES)('$name control store', ({ open }) => {
  it('the first daemon to ask takes the website (restoring its graph); another is told the holder and its address', async () => {
    clock = T0;
    const connect = await open();
    const a = daemon(connect(), 'http://10.0.0.1:7070', { rawContentIds: ['raw_1'], removed: [] });
    const b = daemon(connect(), 'http://10.0.0.2:7070');
    expect(await a.ownership.locate(WEB)).toEqual({ here: true, token: 1 });
    expect(a.calls.restores).toEqual([1]);
    // What the restored graph has not processed yet is enqueued once.
    const queued = a.ownership['options'].jobs as JobQueue;
    expect((queued.claim('w') as { payload: unknown }).payload).toEqual({
      website_id: WEB,
      raw_content_ids: ['raw_1'],
    });
    expect(await b.ownership.locate(WEB)).toEqual({
      here: false,
      owner: a.ownership.daemonId,
      address: 'http://10.0.0.1:7070',
    });
    // Asked again within the tenure: no new restore.
    expect(await a.ownership.locate(WEB)).toEqual({ here: true, token: 1 });
    expect(a.calls.restores).toEqual([1]);
    expect(a.ownership.tokenOf(WEB)).toBe(1);
    expect(b.ownership.tokenOf(WEB)).toBeUndefined();
  });

  it('a dead holder’s website goes to another daemon with a new token; the former one lets go at its next round', async () => {
    clock = T0;
    const connect = await open();
    const a = daemon(connect(), 'http://a');
    const b = daemon(connect(), 'http://b');
    await a.ownership.locate(WEB);
    clock += LEASE_MS; // a stopped renewing (paused, or dead)
    expect(a.ownership.tokenOf(WEB)).toBeUndefined();
    expect(await b.ownership.locate(WEB)).toEqual({ here: true, token: 2 });
    expect(b.calls.restores).toEqual([2]);
    await a.ownership.keep();
    expect(a.calls.released).toEqual([WEB]);
    expect(await a.ownership.locate(WEB)).toMatchObject({ here: false, owner: b.ownership.daemonId });
  });

  it('the holder renews at each round and keeps the website past its first lease', async () => {
    clock = T0;
    const connect = await open();
    const a = daemon(connect(), 'http://a');
    const b = daemon(connect(), 'http://b');
    await a.ownership.locate(WEB);
    for (let round = 0; round < 5; round++) {
      clock += LEASE_MS / 3;
      await a.ownership.keep();
    }
    expect(a.ownership.tokenOf(WEB)).toBe(1);
    expect(await b.ownership.locate(WEB)).toMatchObject({ here: false });
  });

  it('a website with a journal and no live holder is adopted at the next round, without any request', async () => {
    clock = T0;
    const connect = await open();
    const db = connect();
    const web = await insertWebsite(db);
    const a = daemon(db, 'http://a');
    const b = daemon(connect(), 'http://b');
    await a.ownership.locate(web);
    db.prepare(
      `INSERT INTO ingest_journal (website_id, token, kind, body, created_at) VALUES (?, 1, 'delete', '{}', ?)`,
    ).run(web, clock);
    await b.ownership.keep();
    expect(b.calls.restores).toEqual([]); // a still holds it
    clock += LEASE_MS; // a died
    await b.ownership.keep();
    expect(b.calls.restores).toEqual([2]);
    expect(b.ownership.tokenOf(web)).toBe(2);
  });

  it('stop() gives every lease up at once: another daemon takes the website without waiting for it to lapse', async () => {
    clock = T0;
    const connect = await open();
    const a = daemon(connect(), 'http://a');
    const b = daemon(connect(), 'http://b');
    await a.ownership.locate(WEB);
    await a.ownership.stop();
    expect(await b.ownership.locate(WEB)).toEqual({ here: true, token: 2 });
  });

  it('a failed restore gives the lease back and answers 503 (retryable)', async () => {
    clock = T0;
    const connect = await open();
    const db = connect();
    const failing = new GraphOwnership({
      ...daemon(db, 'http://a').ownership['options'],
      handover: {
        restore: async () => {
          throw new Error('the snapshot object is missing');
        },
        snapshot: () => {},
        idle: async () => {},
      },
    });
    await expect(failing.locate(WEB)).rejects.toMatchObject({
      code: 'service.unavailable',
      message: expect.stringContaining('the snapshot object is missing'),
    });
    expect(createWebsiteLeases(db).holder(WEB, clock)).toBeUndefined();
  });

  it('graph job kinds are claimed only by the website’s holder; other kinds by anyone', async () => {
    clock = T0;
    const connect = await open();
    const [dbA, dbB] = [connect(), connect()];
    const leases = createWebsiteLeases(dbA);
    leases.acquire(WEB, 'daemon-a', clock, LEASE_MS);
    const queueA = new JobQueue(dbA, { now });
    const queueB = new JobQueue(dbB, { now });
    queueA.claimOwnedOnly('daemon-a', GRAPH_JOB_KINDS);
    queueB.claimOwnedOnly('daemon-b', GRAPH_JOB_KINDS);
    const ingest = defineJob({
      kind: 'content.ingest',
      lane: 'ingest',
      payload: z.object({ website_id: z.string() }),
      handler: async () => {},
    });
    const other = defineJob({
      kind: 'test.other',
      lane: 'maintenance',
      payload: z.object({}),
      handler: async () => {},
    });
    const graphJob = queueA.enqueue(ingest, { website_id: WEB });
    clock += 1;
    const orphanJob = queueA.enqueue(ingest, { website_id: 'web_nobody' });
    clock += 1;
    const plainJob = queueA.enqueue(other, {});
    expect(queueB.claim('b')?.id).toBe(plainJob.id);
    expect(queueB.claim('b')).toBeUndefined();
    expect(queueA.claim('a')?.id).toBe(graphJob.id);
    // A website nobody holds waits for a daemon to take it (GraphOwnership.keep adopts it).
    expect(queueA.claim('a')).toBeUndefined();
    leases.acquire('web_nobody', 'daemon-b', clock, LEASE_MS);
    expect(queueB.claim('b')?.id).toBe(orphanJob.id);
  });
});

describe('ownedGraphJobs', () => {
  it('runs a graph job on the holder (snapshot after it), defers it elsewhere, leaves other kinds alone', async () => {
    clock = T0;
    const connect = await STORES[0]!.open();
    const a = daemon(connect(), 'http://a');
    const b = daemon(connect(), 'http://b');
    const ran: string[] = [];
    const definitions = [
      defineJob({
        kind: 'content.ingest',
        lane: 'ingest',
        payload: z.object({ website_id: z.string() }),
        handler: async ({ website_id }) => void ran.push(website_id),
      }),
      defineJob({ kind: 'test.other', lane: 'maintenance', payload: z.object({}), handler: async () => {} }),
    ];
    const before: string[] = [];
    const onA = ownedGraphJobs(definitions, a.ownership, (id) => before.push(id));
    const onB = ownedGraphJobs(definitions, b.ownership);
    expect(onA[1]).toBe(definitions[1]);
    const context = {} as never;
    await onA[0]!.handler({ website_id: WEB }, context);
    expect(ran).toEqual([WEB]);
    expect(before).toEqual([WEB]);
    expect(a.calls.snapshots).toEqual([1]);
    const deferred = onB[0]!.handler({ website_id: WEB }, context);
    await expect(deferred).rejects.toBeInstanceOf(JobDeferredError);
    await expect(deferred).rejects.toThrow(a.ownership.daemonId);
    expect(ran).toEqual([WEB]);
  });
});
