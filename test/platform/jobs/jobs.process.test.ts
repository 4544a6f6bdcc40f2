import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineJob } from '../../../src/platform/job-runtime/define-job.js';
import { JOBS, PLANNED_PERIODIC_JOBS } from '../../../src/daemon/job-definitions.js';
import { rateLimitsPruneJob } from '../../../src/control/access/rate-limits-prune-job.js';
import { JobQueue } from '../../../src/platform/jobs/queue.js';
import { enqueueDuePeriodicJobs, periodicJobs } from '../../../src/platform/job-runtime/job-scheduler.js';
import { JobWorker, laneConcurrency } from '../../../src/platform/job-runtime/job-worker.js';
import { resolveConfig } from '../../../src/platform/config/config.js';
import { enforceRateLimit } from '../../../src/platform/http/rate-limit.js';
import { CONTROL_MIGRATIONS } from '../../../src/platform/storage/control-schema.js';
import { openDatabase, type Db } from '../../../src/platform/storage/sqlite.js';
import { type AppServices } from '../../../src/platform/app/services.js';
import { createServices } from '../../../src/daemon/create-services.js';
import { runNodectl } from '../../helpers/cli.js';
import { startTestDaemon } from '../../helpers/daemon.js';
import { makeTempDir } from '../../helpers/paths.js';

/** Job kinds of these tests only: any object payload, a handler that does nothing. */
const testJob = (kind: string, lane: 'ingest' | 'maintenance' = 'ingest') =>
  defineJob({ kind, lane, payload: z.record(z.string(), z.unknown()), handler: async () => {} });
const OTHER = testJob('test.other', 'maintenance');
const PERIODIC_JOBS = periodicJobs(JOBS).map(({ job, intervalSeconds }) => ({ kind: job.kind, intervalSeconds }));
const definedKinds = new Set(JOBS.map((job) => job.kind));

describe('durable job queue', () => {
  let db: Db;
  let cleanup: () => void;

  beforeEach(() => {
    const temp = makeTempDir();
    cleanup = temp.cleanup;
    db = openDatabase(join(temp.dir, 'control.sqlite'), { migrations: CONTROL_MIGRATIONS });
  });
  afterEach(() => {
    db.close();
    cleanup();
  });

  // The queue's own behaviour, on both stores: queue-stores.app.test.ts.
  it('the worker runs handlers, records outcomes and waits for in-flight jobs on stop', async () => {
    const queue = new JobQueue(db, { backoffBaseMs: 10 });
    const ran: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let slowStarted!: () => void;
    const started = new Promise<void>((r) => (slowStarted = r));
    const slowJob = defineJob({
      kind: 'test.slow',
      lane: 'ingest',
      payload: z.object({}),
      handler: async (_p, { job }) => {
        slowStarted();
        await gate;
        ran.push(job.id);
      },
    });
    const brokenJob = defineJob({
      kind: 'test.broken',
      lane: 'ingest',
      payload: z.object({}),
      handler: async () => {
        throw new Error('nope');
      },
    });
    const services = { logger: { info() {}, warn() {}, error() {}, debug() {} } } as unknown as AppServices;
    const outcomes: string[] = [];
    let brokenDone!: () => void;
    const dead = new Promise<void>((r) => (brokenDone = r));
    const worker = new JobWorker(queue, [slowJob, brokenJob], services, {
      lanes: { ingest: 2, publish: 1, delivery: 1, maintenance: 1 },
      pollMs: 5,
      onOutcome: (_j, o) => (outcomes.push(o), o === 'dead' && brokenDone()),
    });
    const slow = queue.enqueue(slowJob, {});
    queue.enqueue(brokenJob, {}, { maxAttempts: 1 });
    worker.start();
    // Both claimed: the slow one waits at its gate, the broken one is dead.
    await Promise.all([started, dead]);
    const stopping = worker.stop();
    release();
    await stopping;
    expect(ran).toEqual([slow.id]);
    expect(queue.get(slow.id)?.state).toBe('succeeded');
    expect(outcomes.sort()).toEqual(['dead', 'succeeded']);
  });
});

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

describe('maintenance jobs', () => {
  let services: AppServices;
  let cleanup: () => void;
  let clock: number;

  function openServices(env: Record<string, string> = {}): void {
    const temp = makeTempDir();
    cleanup = temp.cleanup;
    clock = Date.UTC(2026, 0, 1);
    services = createServices(resolveConfig({ env: { NODECTL_DATA_DIR: temp.dir, ...env } }), { now: () => clock });
  }
  afterEach(() => {
    services.close();
    cleanup();
  });

  /** What the daemon does each tick: enqueue the due periodic jobs, then run every due job. */
  async function runSchedule(): Promise<void> {
    enqueueDuePeriodicJobs(services.controlDb, services.jobs, JOBS, clock);
    await new JobWorker(services.jobs, JOBS, services, {
      lanes: laneConcurrency(services.config.settings),
      pollMs: 1000,
    }).drain();
  }

  function rateLimitWindows(): number[] {
    return (
      services.controlDb.prepare('SELECT window_start FROM rate_limits ORDER BY window_start').all() as Array<{
        window_start: number;
      }>
    ).map((r) => r.window_start);
  }

  it('pruneRateLimits was never called: the hourly maintenance.rate_limits.prune job drops ended windows', async () => {
    openServices();
    expect(JOBS).toContain(rateLimitsPruneJob);
    expect(PERIODIC_JOBS).toContainEqual({ kind: 'maintenance.rate_limits.prune', intervalSeconds: 3600 });
    enforceRateLimit(services.controlDb, 'waitlist:1.2.3.4', 5, 60_000, clock);
    await runSchedule();
    expect(rateLimitWindows()).toEqual([clock]);

    clock += HOUR_MS;
    enforceRateLimit(services.controlDb, 'waitlist:1.2.3.4', 5, 60_000, clock);
    await runSchedule();
    // The window that started an hour ago is kept (prune keeps an hour), the current one too.
    expect(rateLimitWindows()).toEqual([clock - HOUR_MS, clock]);

    clock += HOUR_MS;
    await runSchedule();
    expect(rateLimitWindows()).toEqual([clock - HOUR_MS]);
    expect(services.jobs.list({ kind: 'maintenance.rate_limits.prune', state: 'succeeded' })).toHaveLength(3);
  });

  it('finished jobs were never deleted: maintenance.jobs.prune deletes succeeded and dead jobs 7 days after they finished', async () => {
    openServices();
    expect(services.config.settings.jobRetentionDays).toBe(7);
    const finishedAt = clock;
    const succeeded = services.jobs.enqueue(OTHER, {});
    services.jobs.claim('w', ['test.other']);
    services.jobs.complete(succeeded.id, 'w');
    const dead = services.jobs.enqueue(OTHER, {}, { maxAttempts: 1 });
    services.jobs.claim('w', ['test.other']);
    services.jobs.fail(dead.id, 'w', 'broken');
    const running = services.jobs.enqueue(OTHER, {});
    services.jobs.claim('w', ['test.other']);
    const queued = services.jobs.enqueue(OTHER, {}, { runAt: clock + 30 * DAY_MS });
    expect(services.jobs.get(dead.id)?.state).toBe('dead');

    clock = finishedAt + 7 * DAY_MS - 1;
    await runSchedule();
    expect(services.jobs.get(succeeded.id)?.state).toBe('succeeded');
    expect(services.jobs.get(dead.id)?.state).toBe('dead');

    clock = finishedAt + 7 * DAY_MS + HOUR_MS;
    await runSchedule();
    expect(services.jobs.get(succeeded.id)).toBeUndefined();
    expect(services.jobs.get(dead.id)).toBeUndefined();
    // Unfinished jobs stay whatever their age; so do the maintenance runs of the last 7 days.
    expect(services.jobs.get(running.id)?.state).toBe('running');
    expect(services.jobs.get(queued.id)?.state).toBe('queued');
    expect(services.jobs.list({ kind: 'maintenance.jobs.prune' }).map((j) => j.state)).toEqual([
      'succeeded',
      'succeeded',
    ]);
  });

  it('the job retention is the jobRetentionDays setting (NODECTL_JOB_RETENTION_DAYS)', async () => {
    openServices({ NODECTL_JOB_RETENTION_DAYS: '2' });
    const job = services.jobs.enqueue(OTHER, {});
    services.jobs.claim('w', ['test.other']);
    services.jobs.complete(job.id, 'w');
    clock += 2 * DAY_MS - 1;
    await runSchedule();
    expect(services.jobs.get(job.id)).toBeDefined();
    clock += HOUR_MS;
    await runSchedule();
    expect(services.jobs.get(job.id)).toBeUndefined();
    expect(() => resolveConfig({ env: { NODECTL_JOB_RETENTION_DAYS: '0' } })).toThrow(/jobRetentionDays/);
  });
});

describe('the schedule runs only real work', () => {
  const planned = PLANNED_PERIODIC_JOBS.map((j) => j.kind);

  it('no-op jobs showed as succeeded: the schedule comes from job definitions only, and the placeholder kinds are not defined', () => {
    expect(PERIODIC_JOBS.map((j) => j.kind).sort()).toEqual([
      'analytics.aggregate',
      'connector.heartbeat.check',
      'maintenance.accounts.prune',
      'maintenance.expire',
      'maintenance.jobs.prune',
      'maintenance.rate_limits.prune',
      'maintenance.webhooks.prune',
      'verification.check',
      'webhooks.dispatch',
    ]);
    expect(planned.sort()).toEqual([]);
    for (const kind of planned) expect(definedKinds.has(kind), kind).toBe(false);
  });

  it('a data directory that scheduled the no-op kinds drops their schedule and their queued instance', () => {
    const temp = makeTempDir();
    const db = openDatabase(join(temp.dir, 'control.sqlite'), { migrations: CONTROL_MIGRATIONS });
    try {
      const queue = new JobQueue(db);
      db.prepare('INSERT INTO schedules (kind, interval_seconds, next_run_at) VALUES (?, 3600, 0)').run(
        'reports.placeholder',
      );
      // What an older build left: a placeholder kind (analytics.aggregate was one until it got its handler), defined here only to enqueue it.
      const placeholder = testJob('reports.placeholder', 'maintenance');
      const stale = queue.enqueue(placeholder, {}, { dedupeKey: 'schedule:reports.placeholder' });
      const other = queue.enqueue(placeholder, {});
      expect(enqueueDuePeriodicJobs(db, queue, JOBS).sort()).toEqual(PERIODIC_JOBS.map((j) => j.kind).sort());
      expect(db.prepare('SELECT kind FROM schedules ORDER BY kind').all()).toEqual(
        PERIODIC_JOBS.map((j) => ({ kind: j.kind })).sort((a, b) => a.kind.localeCompare(b.kind)),
      );
      expect(queue.get(stale.id)).toBeUndefined();
      // Only the scheduler's own instance goes; a job enqueued by hand is left to its owner.
      expect(queue.get(other.id)?.state).toBe('queued');
    } finally {
      db.close();
      temp.cleanup();
    }
  });

  it('a fresh daemon schedules only kinds with real handlers (nodectl jobs list)', async () => {
    const daemon = await startTestDaemon();
    try {
      // The scheduler's first tick runs, synchronously, before the daemon says it listens: its jobs are listed from then on.
      const list = await runNodectl(['--json', 'jobs', 'list'], { dataDir: daemon.dataDir });
      expect(list.exitCode, list.stderr).toBe(0);
      const kinds = [...new Set(list.json<Array<{ kind: string }>>().map((j) => j.kind))].sort();
      expect(kinds).toEqual(PERIODIC_JOBS.map((j) => j.kind).sort());
      for (const kind of kinds) expect(definedKinds.has(kind), kind).toBe(true);
    } finally {
      await daemon.stop();
    }
  });
});
