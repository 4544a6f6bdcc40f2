import { EventEmitter } from 'node:events';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { JOBS } from '../../../src/daemon/job-definitions.js';
import type { AppServices } from '../../../src/platform/app/services.js';
import { defineJob, type JobDefinition } from '../../../src/platform/job-runtime/define-job.js';
import { enqueueDuePeriodicJobs, periodicJobs } from '../../../src/platform/job-runtime/job-scheduler.js';
import { JobWorker } from '../../../src/platform/job-runtime/job-worker.js';
import { JobQueue, type JobQueueOptions, type JobStore } from '../../../src/platform/jobs/queue.js';
import type { Awaitable } from '../../../src/platform/jobs/store.js';
import { openControlDb } from '../../../src/platform/storage/control.js';
import { dataDirLayout } from '../../../src/platform/storage/data-dir.js';
import type { Db } from '../../../src/platform/storage/sqlite.js';
import { makeTempDir } from '../../helpers/paths.js';
import { createTestDatabase } from '../../helpers/postgres.js';
import { until } from '../../helpers/until.js';

/** Job kinds of these tests only: any object payload, a handler that does nothing. */
const testJob = (kind: string, lane: 'ingest' | 'maintenance' = 'ingest') =>
  defineJob({ kind, lane, payload: z.record(z.string(), z.unknown()), handler: async () => {} });
const K = testJob('test.k');
const OTHER = testJob('test.other', 'maintenance');
const PERIODIC_KINDS = periodicJobs(JOBS)
  .map(({ job }) => job.kind)
  .sort();
const SHORTEST_INTERVAL_MS = Math.min(...periodicJobs(JOBS).map((p) => p.intervalSeconds)) * 1000;

/** One store's queue and scheduler, on a clock the test moves. */
interface Stores {
  /** A queue of this store; each call may be another "daemon" (PostgreSQL: its own pool). */
  queue(options?: JobQueueOptions): JobStore;
  /** What one scheduler tick does: enqueue the due periodic kinds of `jobs`; returns the kinds it enqueued. */
  schedule(queue: JobStore, jobs: readonly JobDefinition[], now: number): Awaitable<string[]>;
  close(): Awaitable<void>;
}

let clock = 1_000_000;
const now = () => clock;

/** One conformance suite both job stores run: the SQLite queue in control.sqlite and the PostgreSQL one. */
function queueSuite(name: string, make: () => Promise<Stores>) {
  describe(`${name} job queue`, () => {
    let stores: Stores;
    afterEach(async () => {
      await stores?.close();
    });
    const open = async (options: JobQueueOptions = {}) => {
      clock = 1_000_000;
      stores = await make();
      return stores.queue({ now, ...options });
    };

    it('claims a due job once, with a lease', async () => {
      const queue = await open();
      const job = await queue.enqueue(K, { a: 1 });
      const claimed = await queue.claim('w1');
      expect(claimed?.id).toBe(job.id);
      expect(claimed?.payload).toEqual({ a: 1 });
      expect(claimed?.state).toBe('running');
      expect(claimed?.attempts).toBe(1);
      expect(claimed?.leaseOwner).toBe('w1');
      expect(claimed?.leaseUntil).toBe(clock + 60_000);
      expect(await queue.claim('w2')).toBeUndefined();
    });

    it('does not claim a job before its run time, and claims only the kinds asked for', async () => {
      const queue = await open();
      await queue.enqueue(K, {}, { runAt: clock + 5000 });
      const other = await queue.enqueue(OTHER, {});
      expect(await queue.claim('w', [K.kind])).toBeUndefined();
      expect((await queue.claim('w', [K.kind, OTHER.kind]))?.id).toBe(other.id);
      clock += 5000;
      expect((await queue.claim('w'))?.kind).toBe(K.kind);
    });

    it('gives a job back when its worker died and the lease lapsed', async () => {
      const queue = await open({ leaseMs: 1000 });
      const job = await queue.enqueue(K, {});
      await queue.claim('dead-worker');
      clock += 999;
      expect(await queue.claim('w2')).toBeUndefined();
      clock += 2;
      const again = await queue.claim('w2');
      expect(again?.id).toBe(job.id);
      expect(again?.attempts).toBe(2);
      // The dead worker can no longer complete it, nor keep its lease.
      await queue.complete(job.id, 'dead-worker');
      expect(await queue.heartbeat(job.id, 'dead-worker')).toBe(false);
      expect((await queue.get(job.id))?.state).toBe('running');
      clock += 500;
      expect(await queue.heartbeat(job.id, 'w2')).toBe(true);
      expect((await queue.get(job.id))?.leaseUntil).toBe(clock + 1000);
    });

    it('retries with exponential backoff and dead-letters after maxAttempts', async () => {
      const queue = await open({ maxAttempts: 3, backoffBaseMs: 1000 });
      const job = await queue.enqueue(K, {});
      await queue.claim('w');
      expect((await queue.fail(job.id, 'w', 'e1'))?.runAt).toBe(clock + 1000);
      clock += 1000;
      await queue.claim('w');
      expect((await queue.fail(job.id, 'w', 'e2'))?.runAt).toBe(clock + 2000);
      clock += 2000;
      await queue.claim('w');
      const dead = await queue.fail(job.id, 'w', 'e3');
      expect(dead?.state).toBe('dead');
      expect(dead?.lastError).toBe('e3');
      clock += 1_000_000;
      expect(await queue.claim('w')).toBeUndefined();
    });

    it('a failure reported by a worker that lost the lease changes nothing', async () => {
      const queue = await open();
      const job = await queue.enqueue(K, {});
      await queue.claim('w');
      expect((await queue.fail(job.id, 'other', 'e'))?.state).toBe('running');
      expect((await queue.deadLetter(job.id, 'other', 'e'))?.state).toBe('running');
      expect((await queue.postpone(job.id, 'other', 'e', 10))?.state).toBe('running');
    });

    it('postpones without spending the attempt, and dead-letters at once', async () => {
      const queue = await open();
      const job = await queue.enqueue(K, {});
      await queue.claim('w');
      const postponed = await queue.postpone(job.id, 'w', 'disk full', 5000);
      expect(postponed).toMatchObject({ state: 'queued', attempts: 0, runAt: clock + 5000, lastError: 'disk full' });
      clock += 5000;
      expect((await queue.claim('w'))?.attempts).toBe(1);
      const dead = await queue.deadLetter(job.id, 'w', 'bad payload');
      expect(dead).toMatchObject({ state: 'dead', lastError: 'bad payload', leaseOwner: null });
    });

    it('dedupes by key while a job is queued or running', async () => {
      const queue = await open();
      const a = await queue.enqueue(K, { n: 1 }, { dedupeKey: 'x' });
      const b = await queue.enqueue(K, { n: 2 }, { dedupeKey: 'x' });
      expect(b.id).toBe(a.id);
      await queue.claim('w');
      expect((await queue.enqueue(K, {}, { dedupeKey: 'x' })).id).toBe(a.id);
      await queue.complete(a.id, 'w');
      expect((await queue.enqueue(K, {}, { dedupeKey: 'x' })).id).not.toBe(a.id);
    });

    it('merges into a queued job with its key; a queued payload that no longer parses is dead-lettered and replaced', async () => {
      const queue = await open();
      const strict = defineJob({
        kind: 'test.k',
        lane: 'ingest',
        payload: z.object({ ids: z.array(z.string()) }),
        handler: async () => {},
      });
      const first = await queue.enqueue(strict, { ids: ['a'] }, { dedupeKey: 'm' });
      const merge = (queued: { ids: string[] }) => ({ ids: [...queued.ids, 'b'] });
      const merged = await queue.enqueue(strict, { ids: ['b'] }, { dedupeKey: 'm', merge });
      expect(merged.id).toBe(first.id);
      expect(merged.payload).toEqual({ ids: ['a', 'b'] });
      // A payload another schema wrote (an older build) under the same key.
      const stale = await queue.enqueue(K, { old: true }, { dedupeKey: 'n' });
      const fresh = await queue.enqueue(strict, { ids: ['c'] }, { dedupeKey: 'n', merge });
      expect(fresh.id).not.toBe(stale.id);
      expect(fresh.payload).toEqual({ ids: ['c'] });
      expect((await queue.get(stale.id))?.state).toBe('dead');
    });

    it('tells its listeners of each enqueued job', async () => {
      const queue = await open();
      const seen: string[] = [];
      const unsubscribe = queue.onEnqueue((job) => seen.push(job.id));
      const job = await queue.enqueue(K, {});
      unsubscribe();
      await queue.enqueue(K, {});
      expect(seen).toEqual([job.id]);
    });

    it('keeps item errors counted, and listed up to its limit', async () => {
      const queue = await open({ itemErrorsListed: 2 });
      const job = await queue.enqueue(K, {});
      const error = (n: number) => ({ itemId: `i${n}`, itemType: 'page', url: null, code: 'item.x', message: 'm' });
      await queue.addItemErrors(job.id, [error(1)]);
      await queue.addItemErrors(job.id, [error(2), error(3)]);
      expect((await queue.get(job.id))?.itemErrors).toEqual({ count: 3, listed: [error(1), error(2)] });
    });

    it('lists newest first with filters and pages, counts per state, prunes finished jobs', async () => {
      const queue = await open();
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        clock += 1;
        ids.push((await queue.enqueue(K, { website_id: i % 2 === 0 ? 'web_a' : 'web_b', i })).id);
      }
      clock += 1;
      const other = await queue.enqueue(OTHER, {});
      expect((await queue.list()).map((j) => j.id)).toEqual([other.id, ...[...ids].reverse()]);
      expect((await queue.list({ websiteId: 'web_a' })).map((j) => j.id)).toEqual([ids[4], ids[2], ids[0]]);
      expect((await queue.list({ kind: OTHER.kind })).map((j) => j.id)).toEqual([other.id]);
      const page = await queue.list({ kind: K.kind, limit: 2 });
      expect(page.map((j) => j.id)).toEqual([ids[4], ids[3]]);
      const last = page[1]!;
      const next = await queue.list({ kind: K.kind, before: { createdAt: last.createdAt, id: last.id }, limit: 2 });
      expect(next.map((j) => j.id)).toEqual([ids[2], ids[1]]);
      const claimed = (await queue.claim('w', [OTHER.kind]))!;
      await queue.complete(claimed.id, 'w');
      expect(await queue.list({ state: 'succeeded' })).toMatchObject([{ id: other.id, state: 'succeeded' }]);
      expect(await queue.depth()).toEqual({ queued: 5, running: 0, succeeded: 1, dead: 0 });
      expect(await queue.depth(OTHER.kind)).toEqual({ queued: 0, running: 0, succeeded: 1, dead: 0 });
      expect(await queue.pruneFinished(clock)).toBe(0);
      expect(await queue.pruneFinished(clock + 1)).toBe(1);
      expect(await queue.get(other.id)).toBeUndefined();
    });

    it('the scheduler enqueues each periodic job once per interval, keeping one instance queued', async () => {
      const queue = await open();
      expect([...(await stores.schedule(queue, JOBS, clock))].sort()).toEqual(PERIODIC_KINDS);
      expect(await stores.schedule(queue, JOBS, clock + 1000)).toEqual([]);
      const kinds = await stores.schedule(queue, JOBS, clock + SHORTEST_INTERVAL_MS);
      expect(kinds.length).toBeGreaterThan(0);
      // Not yet run: the second period coalesces into the queued instance.
      expect((await queue.depth()).queued).toBe(PERIODIC_KINDS.length);
    });

    it('the scheduler drops a kind no longer periodic, with its queued instance (a job enqueued by hand stays)', async () => {
      const queue = await open();
      const hourly = (kind: string) =>
        defineJob({
          kind,
          lane: 'maintenance',
          payload: z.object({}),
          schedule: { intervalSeconds: 3600 },
          handler: async () => {},
        });
      const kept = hourly('test.kept');
      const dropped = hourly('test.dropped');
      expect([...(await stores.schedule(queue, [kept, dropped], clock))].sort()).toEqual(['test.dropped', 'test.kept']);
      const byHand = await queue.enqueue(dropped, {});
      expect(await stores.schedule(queue, [kept], clock + 3_600_000)).toEqual(['test.kept']);
      expect((await queue.list({ kind: 'test.dropped' })).map((j) => j.id)).toEqual([byHand.id]);
      expect((await queue.list({ kind: 'test.kept', state: 'queued' })).length).toBe(1);
    });

    it('a worker runs jobs from the store: outcomes recorded, lane concurrency kept, stop waits for the job in flight', async () => {
      const queue = await open({ backoffBaseMs: 10 });
      const changes = new EventEmitter();
      let running = 0;
      let mostAtOnce = 0;
      const ran: string[] = [];
      const quick = defineJob({
        kind: 'test.quick',
        lane: 'ingest',
        payload: z.object({}),
        handler: async (_p, { job }) => {
          mostAtOnce = Math.max(mostAtOnce, ++running);
          // Let the other claims in while this one runs.
          await new Promise((resolve) => setImmediate(resolve));
          ran.push(job.id);
          running--;
        },
      });
      const broken = defineJob({
        kind: 'test.broken',
        lane: 'maintenance',
        payload: z.object({}),
        handler: async () => {
          throw new Error('nope');
        },
      });
      const outcomes: string[] = [];
      const worker = new JobWorker(queue, [quick, broken], SILENT_SERVICES, {
        lanes: { ingest: 2, publish: 1, delivery: 1, maintenance: 1, embeddings: 1 },
        pollMs: 5,
        onOutcome: (_job, outcome) => (outcomes.push(outcome), changes.emit('change')),
      });
      const ids: string[] = [];
      for (let i = 0; i < 10; i++) ids.push((await queue.enqueue(quick, {})).id);
      const dead = await queue.enqueue(broken, {}, { maxAttempts: 1 });
      worker.start();
      await until(changes, 'change', () => outcomes.length === 11, 'the jobs to run');
      await worker.stop();
      expect([...ran].sort()).toEqual([...ids].sort());
      expect(mostAtOnce).toBeLessThanOrEqual(2);
      expect(outcomes.filter((o) => o === 'dead')).toHaveLength(1);
      expect((await queue.get(dead.id))?.lastError).toBe('nope');
      expect(await queue.depth()).toEqual({ queued: 0, running: 0, succeeded: 10, dead: 1 });
    });
  });
}

/** Services a worker needs here: a logger that says nothing. */
const SILENT_SERVICES = { logger: { info() {}, warn() {}, error() {}, debug() {} } } as unknown as AppServices;

queueSuite('sqlite', async () => {
  const temp = makeTempDir('nodectl-jobs-');
  const db = openControlDb(dataDirLayout(temp.dir));
  return {
    queue: (options) => new JobQueue(db, options),
    schedule: (queue, jobs, at) => enqueueDuePeriodicJobs(db, queue as JobQueue, jobs, at),
    close: () => (db.close(), temp.cleanup()),
  };
});

// The queue the daemon runs with controlStore = postgres://...: the SQLite queue's code on the control Db.
queueSuite('control Db on postgres', async () => {
  const url = await createTestDatabase();
  const temp = makeTempDir('nodectl-jobs-');
  const dbs = new Map<JobStore, Db>();
  return {
    // Each queue its own connection: two queues are two daemons sharing the database.
    queue: (options) => {
      const db = openControlDb(dataDirLayout(temp.dir), url);
      const queue = new JobQueue(db, options);
      dbs.set(queue, db);
      return queue;
    },
    schedule: (queue, jobs, at) => enqueueDuePeriodicJobs(dbs.get(queue)!, queue as JobQueue, jobs, at),
    close: () => {
      for (const db of dbs.values()) db.close();
      temp.cleanup();
    },
  };
});

describe('the control Db queue on postgres across daemons', () => {
  it('a claim skips a job another daemon holds locked instead of waiting for it (FOR UPDATE SKIP LOCKED)', async () => {
    const url = await createTestDatabase();
    const temp = makeTempDir('nodectl-jobs-');
    const db = openControlDb(dataDirLayout(temp.dir), url);
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    try {
      clock = 1_000_000;
      const queue = new JobQueue(db, { now });
      const first = queue.enqueue(K, { n: 1 });
      clock += 1;
      const second = queue.enqueue(K, { n: 2 });
      await holder.query('BEGIN');
      await holder.query('SELECT id FROM jobs WHERE id = $1 FOR UPDATE', [first.id]);
      expect(queue.claim('b')?.id).toBe(second.id);
      await holder.query('ROLLBACK');
      expect(queue.claim('c')?.id).toBe(first.id);
      expect(queue.claim('d')).toBeUndefined();
    } finally {
      await holder.end();
      db.close();
      temp.cleanup();
    }
  });
});

/** Several daemons sharing one PostgreSQL control store: each queue on its own connection. */
describe('the control Db queue on postgres across daemons: claims, workers, schedules', () => {
  const opened: Array<{ db: Db; cleanup: () => void }> = [];
  afterEach(() => {
    for (const { db, cleanup } of opened.splice(0)) (db.close(), cleanup());
  });
  const dbOf = new Map<JobQueue, Db>();
  async function daemons(count: number, options: JobQueueOptions = {}): Promise<JobQueue[]> {
    const url = await createTestDatabase();
    return Array.from({ length: count }, () => {
      const temp = makeTempDir('nodectl-jobs-');
      const db = openControlDb(dataDirLayout(temp.dir), url);
      opened.push({ db, cleanup: temp.cleanup });
      const queue = new JobQueue(db, { now, ...options });
      dbOf.set(queue, db);
      return queue;
    });
  }

  it('two daemons with four claimers each claim every one of 200 jobs exactly once', async () => {
    clock = 1_000_000;
    const [a, b] = await daemons(2);
    const ids = new Set<string>();
    for (let i = 0; i < 200; i++) ids.add((await a!.enqueue(K, { i })).id);
    const claims: string[] = [];
    const claimer = async (queue: JobQueue, owner: string) => {
      for (let job = await queue.claim(owner); job; job = await queue.claim(owner)) {
        claims.push(job.id);
        await queue.complete(job.id, owner);
      }
    };
    await Promise.all([a!, b!].flatMap((queue, d) => [0, 1, 2, 3].map((c) => claimer(queue, `d${d}-c${c}`))));
    expect(claims).toHaveLength(200);
    expect(new Set(claims)).toEqual(ids);
    expect(await b!.depth()).toEqual({ queued: 0, running: 0, succeeded: 200, dead: 0 });
    expect((await a!.list({ limit: 300 })).every((job) => job.attempts === 1)).toBe(true);
  });

  it("two daemons' workers run each of 100 jobs once", async () => {
    clock = 1_000_000;
    const queues = await daemons(2);
    const changes = new EventEmitter();
    const runs = new Map<string, number>();
    const job = defineJob({
      kind: 'test.cluster',
      lane: 'ingest',
      payload: z.object({}),
      handler: async (_p, { job: claimed }) => {
        await new Promise((resolve) => setImmediate(resolve));
        runs.set(claimed.id, (runs.get(claimed.id) ?? 0) + 1);
      },
    });
    const ids: string[] = [];
    for (let i = 0; i < 100; i++) ids.push((await queues[0]!.enqueue(job, {})).id);
    let outcomes = 0;
    const workers = queues.map(
      (queue) =>
        new JobWorker(queue, [job], SILENT_SERVICES, {
          lanes: { ingest: 4, publish: 1, delivery: 1, maintenance: 1, embeddings: 1 },
          pollMs: 5,
          onOutcome: () => (outcomes++, changes.emit('change')),
        }),
    );
    for (const worker of workers) worker.start();
    await until(changes, 'change', () => outcomes === 100, 'the jobs to run');
    await Promise.all(workers.map((worker) => worker.stop()));
    expect([...runs.keys()].sort()).toEqual([...ids].sort());
    expect([...runs.values()].every((n) => n === 1)).toBe(true);
    expect(await queues[1]!.depth()).toEqual({ queued: 0, running: 0, succeeded: 100, dead: 0 });
  });

  it('a job whose daemon died is claimed by the other once its lease lapses, and completes once', async () => {
    clock = 1_000_000;
    const [dying, survivor] = await daemons(2, { leaseMs: 1000 });
    const job = await dying!.enqueue(K, {});
    expect((await dying!.claim('dying'))?.id).toBe(job.id);
    expect(await survivor!.claim('survivor')).toBeUndefined();
    clock += 1001; // the dying daemon renewed nothing
    const taken = await survivor!.claim('survivor');
    expect(taken).toMatchObject({ id: job.id, attempts: 2, leaseOwner: 'survivor' });
    expect(await dying!.heartbeat(job.id, 'dying')).toBe(false);
    await dying!.complete(job.id, 'dying');
    expect((await survivor!.get(job.id))?.state).toBe('running');
    await survivor!.complete(job.id, 'survivor');
    expect(await dying!.get(job.id)).toMatchObject({ state: 'succeeded', attempts: 2, leaseOwner: null });
    clock += 1_000_000;
    expect(await dying!.claim('dying')).toBeUndefined();
  });

  it('two schedulers over one database enqueue one job per period', async () => {
    clock = 1_000_000;
    const [a, b] = await daemons(2);
    const periodic = periodicJobs(JOBS);
    const tick = async (at: number) => {
      const kinds = [a!, b!, a!, b!].map((queue) => enqueueDuePeriodicJobs(dbOf.get(queue)!, queue, JOBS, at));
      return kinds.flat().sort();
    };
    expect(await tick(clock)).toEqual(PERIODIC_KINDS);
    expect((await a!.depth()).queued).toBe(PERIODIC_KINDS.length);
    // Every instance runs and completes; the same period enqueues nothing more on either daemon.
    for (let job = await a!.claim('a'); job; job = await a!.claim('a')) await a!.complete(job.id, 'a');
    expect(await tick(clock + 1000)).toEqual([]);
    expect(await b!.depth()).toEqual({ queued: 0, running: 0, succeeded: PERIODIC_KINDS.length, dead: 0 });
    // The next period of the shortest kinds: once each across both daemons.
    const next = await tick(clock + SHORTEST_INTERVAL_MS);
    const shortest = periodic.filter((p) => p.intervalSeconds * 1000 === SHORTEST_INTERVAL_MS).map((p) => p.job.kind);
    expect(next).toEqual(shortest.sort());
    expect((await a!.depth()).queued).toBe(shortest.length);
  });
});
