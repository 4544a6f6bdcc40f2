import Database from 'better-sqlite3';
import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { resolveConfig } from '../../../src/platform/config/config.js';
import { type AppServices } from '../../../src/platform/app/services.js';
import { createServices } from '../../../src/daemon/create-services.js';
import { defineJob, type JobDefinition } from '../../../src/platform/job-runtime/define-job.js';
import { JobWorker } from '../../../src/platform/job-runtime/job-worker.js';
import type { JobQueue } from '../../../src/platform/jobs/queue.js';
import { fakeClock, type FakeClock } from '../../helpers/app.js';
import { makeTempDir } from '../../helpers/paths.js';
import { until } from '../../helpers/until.js';

const ONE_EACH = { ingest: 1, publish: 1, delivery: 1, maintenance: 1 };
const diskFull = () => new Database.SqliteError('database or disk is full', 'SQLITE_FULL');

/** Emits 'change' at each outcome the worker records and each handler run. */
const changes = new EventEmitter();
const waitFor = (condition: () => boolean, what: string) => until(changes, 'change', condition, what, 10_000);

/**
 * A full disk as the queue meets it: while `full`, every write of the job bookkeeping (complete,
 * fail, dead-letter, and whatever a fix adds) throws SQLITE_FULL, as on the data directory of bug F1.
 */
function fillQueue(queue: JobQueue): { full: boolean } {
  const disk = { full: false };
  const target = queue as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const name of ['complete', 'fail', 'deadLetter', 'postpone', 'heartbeat']) {
    const original = target[name];
    if (typeof original !== 'function') continue;
    target[name] = function (this: unknown, ...args: unknown[]) {
      if (disk.full) throw diskFull();
      return original.apply(this, args);
    };
  }
  return disk;
}

describe('the job worker on a full disk', () => {
  let services: AppServices;
  let clock: FakeClock;
  let cleanup: () => void;
  let worker: JobWorker | undefined;
  beforeEach(() => {
    const temp = makeTempDir();
    cleanup = temp.cleanup;
    clock = fakeClock(Date.now());
    services = createServices(
      resolveConfig({
        env: { NODECTL_DATA_DIR: temp.dir, NODECTL_JOB_LEASE_SECONDS: '30', NODECTL_JOB_MAX_ATTEMPTS: '1' },
      }),
      { now: clock.now },
    );
  });
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
    services.close();
    cleanup();
  });

  function startWorker(jobs: JobDefinition[]): JobWorker {
    worker = new JobWorker(services.jobs, jobs, services, {
      lanes: ONE_EACH,
      pollMs: 10,
      onOutcome: () => void changes.emit('change'),
    });
    worker.start();
    return worker;
  }

  it('bug F1: a failure it cannot record (SQLITE_FULL in JobQueue.fail) neither crashes the loop nor loses the job: its lease lapses and it runs again once there is space', async () => {
    // A rejection escaping the loop ends the daemon (Node's default): vitest fails the run on one.
    const disk = fillQueue(services.jobs);
    let runs = 0;
    const ingest = defineJob({
      kind: 'test.ingest',
      lane: 'ingest',
      payload: z.object({}),
      handler: async () => {
        runs++;
        changes.emit('change');
        if (disk.full) throw diskFull();
      },
    });
    let others = 0;
    const other = defineJob({
      kind: 'test.other',
      lane: 'maintenance',
      payload: z.object({}),
      handler: async () => void (others++, changes.emit('change')),
    });
    disk.full = true;
    const job = services.jobs.enqueue(ingest, {});
    startWorker([ingest, other]);
    await waitFor(() => runs === 1, 'the first run');
    // The loop goes on: another job is claimed and run (its completion cannot be recorded either).
    services.jobs.enqueue(other, {});
    await waitFor(() => others === 1, 'the other job');
    expect(services.jobs.get(job.id)).toMatchObject({ state: 'running' });

    disk.full = false;
    clock.advance(31_000); // the lease of the failed attempt lapses
    await waitFor(() => services.jobs.get(job.id)?.state === 'succeeded', 'the job to succeed once there is space');
    expect(runs).toBe(2);
  });

  it('`nodectl jobs run` (drain) does not throw either when the failure cannot be recorded', async () => {
    const disk = fillQueue(services.jobs);
    const ingest = defineJob({
      kind: 'test.ingest',
      lane: 'ingest',
      payload: z.object({}),
      handler: async () => {
        throw diskFull();
      },
    });
    disk.full = true;
    const job = services.jobs.enqueue(ingest, {});
    worker = new JobWorker(services.jobs, [ingest], services, { lanes: ONE_EACH, pollMs: 10 });
    await expect(worker.drain()).resolves.toBe(1);
    expect(services.jobs.get(job.id)).toMatchObject({ state: 'running' });
  });

  it('a storage fault does not spend an attempt: with maxAttempts 1 the job is kept for a later retry, not dead-lettered', async () => {
    let runs = 0;
    let failing = true;
    const ingest = defineJob({
      kind: 'test.ingest',
      lane: 'ingest',
      payload: z.object({}),
      handler: async () => {
        runs++;
        changes.emit('change');
        if (failing) throw new Error('content.ingest failed', { cause: diskFull() });
      },
    });
    const job = services.jobs.enqueue(ingest, {});
    startWorker([ingest]);
    await waitFor(() => services.jobs.get(job.id)?.lastError != null, 'the failure to be recorded');
    const after = services.jobs.get(job.id)!;
    expect(after).toMatchObject({ state: 'queued', attempts: 0 });
    expect(after.runAt).toBeGreaterThan(clock.now());
    expect(after.lastError).toMatch(/database or disk is full/);

    failing = false;
    clock.advance(after.runAt - clock.now());
    await waitFor(() => services.jobs.get(job.id)?.state === 'succeeded', 'the retry to succeed');
    expect(runs).toBe(2);
  });

  it('any other failure still spends its attempts (dead-lettered at maxAttempts 1)', async () => {
    const broken = defineJob({
      kind: 'test.broken',
      lane: 'ingest',
      payload: z.object({}),
      handler: async () => {
        throw new Error('a bug');
      },
    });
    const job = services.jobs.enqueue(broken, {});
    startWorker([broken]);
    await waitFor(() => services.jobs.get(job.id)?.state === 'dead', 'the dead letter');
  });
});
