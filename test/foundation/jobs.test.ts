import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JobQueue } from '../../src/jobs/queue.js';
import { enqueueDuePeriodicJobs } from '../../src/jobs/scheduler.js';
import { JobWorker } from '../../src/jobs/worker.js';
import { PERIODIC_JOBS, type JobHandler } from '../../src/jobs/handlers.js';
import { CONTROL_MIGRATIONS } from '../../src/storage/control-schema.js';
import { openDatabase, type Db } from '../../src/storage/sqlite.js';
import type { AppServices } from '../../src/daemon/services.js';
import { makeTempDir } from '../helpers/paths.js';

describe('durable job queue', () => {
  let db: Db;
  let cleanup: () => void;
  let clock = 1_000_000;
  const now = () => clock;

  beforeEach(() => {
    const temp = makeTempDir();
    cleanup = temp.cleanup;
    db = openDatabase(join(temp.dir, 'control.sqlite'), { migrations: CONTROL_MIGRATIONS });
    clock = 1_000_000;
  });
  afterEach(() => {
    db.close();
    cleanup();
  });

  it('claims a due job once, with a lease', () => {
    const queue = new JobQueue(db, { now });
    const job = queue.enqueue('content.ingest', { a: 1 });
    const claimed = queue.claim('w1');
    expect(claimed?.id).toBe(job.id);
    expect(claimed?.payload).toEqual({ a: 1 });
    expect(claimed?.state).toBe('running');
    expect(claimed?.leaseUntil).toBe(clock + 60_000);
    expect(queue.claim('w2')).toBeUndefined();
  });

  it('does not claim a job before its run time', () => {
    const queue = new JobQueue(db, { now });
    queue.enqueue('k', {}, { runAt: clock + 5000 });
    expect(queue.claim('w')).toBeUndefined();
    clock += 5000;
    expect(queue.claim('w')).toBeDefined();
  });

  it('gives a job back when its worker died and the lease lapsed', () => {
    const queue = new JobQueue(db, { now, leaseMs: 1000 });
    const job = queue.enqueue('k', {});
    queue.claim('dead-worker');
    clock += 999;
    expect(queue.claim('w2')).toBeUndefined();
    clock += 2;
    const again = queue.claim('w2');
    expect(again?.id).toBe(job.id);
    expect(again?.attempts).toBe(2);
    // The dead worker can no longer complete it.
    queue.complete(job.id, 'dead-worker');
    expect(queue.get(job.id)?.state).toBe('running');
  });

  it('retries with exponential backoff and dead-letters after maxAttempts', () => {
    const queue = new JobQueue(db, { now, maxAttempts: 3, backoffBaseMs: 1000 });
    const job = queue.enqueue('k', {});
    queue.claim('w');
    expect(queue.fail(job.id, 'w', 'e1')?.runAt).toBe(clock + 1000);
    clock += 1000;
    queue.claim('w');
    expect(queue.fail(job.id, 'w', 'e2')?.runAt).toBe(clock + 2000);
    clock += 2000;
    queue.claim('w');
    const dead = queue.fail(job.id, 'w', 'e3');
    expect(dead?.state).toBe('dead');
    expect(dead?.lastError).toBe('e3');
    clock += 1_000_000;
    expect(queue.claim('w')).toBeUndefined();
  });

  it('dedupes by key while a job is queued or running', () => {
    const queue = new JobQueue(db, { now });
    const a = queue.enqueue('k', { n: 1 }, { dedupeKey: 'x' });
    const b = queue.enqueue('k', { n: 2 }, { dedupeKey: 'x' });
    expect(b.id).toBe(a.id);
    queue.claim('w');
    queue.complete(a.id, 'w');
    expect(queue.enqueue('k', {}, { dedupeKey: 'x' }).id).not.toBe(a.id);
  });

  it('the scheduler enqueues each periodic job once per interval, across restarts', () => {
    const queue = new JobQueue(db, { now });
    expect(enqueueDuePeriodicJobs(db, queue, clock).sort()).toEqual(PERIODIC_JOBS.map((j) => j.kind).sort());
    expect(enqueueDuePeriodicJobs(db, queue, clock + 1000)).toEqual([]);
    const shortest = Math.min(...PERIODIC_JOBS.map((j) => j.intervalSeconds));
    const kinds = enqueueDuePeriodicJobs(db, queue, clock + shortest * 1000);
    expect(kinds.length).toBeGreaterThan(0);
  });

  it('the worker runs handlers, records outcomes and waits for in-flight jobs on stop', async () => {
    const queue = new JobQueue(db, { backoffBaseMs: 10 });
    const ran: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const handlers = new Map<string, JobHandler>([
      ['slow', async (job) => { await gate; ran.push(job.id); }],
      ['broken', async () => { throw new Error('nope'); }],
    ]);
    const services = { logger: { info() {}, warn() {}, error() {}, debug() {} } } as unknown as AppServices;
    const outcomes: string[] = [];
    const worker = new JobWorker(queue, handlers, services, { concurrency: 2, pollMs: 5, onOutcome: (_j, o) => outcomes.push(o) });
    const slow = queue.enqueue('slow', {});
    queue.enqueue('broken', {}, { maxAttempts: 1 });
    worker.start();
    await new Promise((r) => setTimeout(r, 100));
    const stopping = worker.stop();
    release();
    await stopping;
    expect(ran).toEqual([slow.id]);
    expect(queue.get(slow.id)?.state).toBe('succeeded');
    expect(outcomes.sort()).toEqual(['dead', 'succeeded']);
  });
});
