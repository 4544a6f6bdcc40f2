import { EventEmitter } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { resolveConfig } from '../../../src/platform/config/config.js';
import { type AppServices } from '../../../src/platform/app/services.js';
import { createServices } from '../../../src/daemon/create-services.js';
import { defineJob, type JobDefinition, type JobLane } from '../../../src/platform/job-runtime/define-job.js';
import { JobWorker, laneConcurrency, type LaneConcurrency } from '../../../src/platform/job-runtime/job-worker.js';
import { makeTempDir } from '../../helpers/paths.js';
import { until } from '../../helpers/until.js';

const ONE_EACH: LaneConcurrency = { ingest: 1, publish: 1, delivery: 1, maintenance: 1, embeddings: 1 };

/** Emits 'change' whenever a job starts or ends (hanging jobs) or the worker records an outcome: what the waits below wait on. */
const changes = new EventEmitter();

/** A job that hangs until released (at most 10 s, like a webhook endpoint that never answers). */
function createHangingJob(kind: string, lane: JobLane) {
  const releases: Array<() => void> = [];
  let running = 0;
  let mostAtOnce = 0;
  const job = defineJob({
    kind,
    lane,
    payload: z.object({}),
    handler: async () => {
      mostAtOnce = Math.max(mostAtOnce, ++running);
      changes.emit('change');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 10_000);
        releases.push(() => (clearTimeout(timer), resolve()));
      });
      running--;
      changes.emit('change');
    },
  });
  return {
    job,
    running: () => running,
    mostAtOnce: () => mostAtOnce,
    releaseAll: () => releases.splice(0).forEach((release) => release()),
  };
}

/** Resolves once `condition` holds, checked at every start, end and outcome of a job. */
const waitFor = (condition: () => boolean, what = 'the jobs') => until(changes, 'change', condition, what, 5_000);
/**
 * `ms` of the worker's polling on a fake clock (its timers only; promises and setImmediate stay
 * real): the worker gets every poll it would get in that time, at once. Used where a test shows
 * that something does not happen however often the worker looks.
 */
const polling = {
  start: () => void vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] }),
  pass: (ms: number) => vi.advanceTimersByTimeAsync(ms),
};

describe('job lanes', () => {
  let services: AppServices;
  let cleanup: () => void;
  const stops: Array<() => Promise<void>> = [];
  beforeEach(() => {
    const temp = makeTempDir();
    cleanup = temp.cleanup;
    services = createServices(resolveConfig({ env: { NODECTL_DATA_DIR: temp.dir } }));
  });
  afterEach(async () => {
    vi.useRealTimers();
    for (const stop of stops.splice(0)) await stop();
    services.close();
    cleanup();
  });

  function startWorker(jobs: JobDefinition[], lanes: LaneConcurrency): JobWorker {
    const worker = new JobWorker(services.jobs, jobs, services, {
      lanes,
      pollMs: 10,
      onOutcome: () => void changes.emit('change'),
    });
    worker.start();
    return worker;
  }

  it('regression: one global concurrency let a hanging delivery starve ingestion; an ingest job completes while the delivery job still runs', async () => {
    const delivery = createHangingJob('test.deliver', 'delivery');
    const ingest = defineJob({ kind: 'test.ingest', lane: 'ingest', payload: z.object({}), handler: async () => {} });
    // Due first (ids made in one millisecond do not sort by creation), so it is claimed first.
    const slow = services.jobs.enqueue(delivery.job, {}, { runAt: Date.now() - 1_000 });
    const fast = services.jobs.enqueue(ingest, {});
    const worker = startWorker([delivery.job, ingest], ONE_EACH);
    stops.push(async () => (delivery.releaseAll(), await worker.stop()));
    await waitFor(() => services.jobs.get(fast.id)?.state === 'succeeded');
    expect(delivery.running()).toBe(1);
    expect(services.jobs.get(slow.id)?.state).toBe('running');
  });

  it('the same two jobs in one lane of concurrency 1: the ingest job waits behind the hanging one (what the lanes prevent)', async () => {
    const delivery = createHangingJob('test.deliver', 'delivery');
    const sameLane = defineJob({
      kind: 'test.ingest',
      lane: 'delivery',
      payload: z.object({}),
      handler: async () => {},
    });
    services.jobs.enqueue(delivery.job, {}, { runAt: Date.now() - 1_000 });
    const fast = services.jobs.enqueue(sameLane, {});
    polling.start();
    const worker = startWorker([delivery.job, sameLane], ONE_EACH);
    stops.push(async () => (delivery.releaseAll(), await worker.stop()));
    await polling.pass(0);
    expect(delivery.running()).toBe(1);
    await polling.pass(300); // 30 polls
    expect(services.jobs.get(fast.id)?.state).toBe('queued');
    delivery.releaseAll();
    await waitFor(() => services.jobs.get(fast.id)?.state === 'succeeded');
  });

  it('a lane runs at most its own concurrency at once, and the rest of its jobs wait their turn', async () => {
    const delivery = createHangingJob('test.deliver', 'delivery');
    const ids = Array.from({ length: 4 }, () => services.jobs.enqueue(delivery.job, {}).id);
    polling.start();
    const worker = startWorker([delivery.job], { ...ONE_EACH, delivery: 2 });
    stops.push(async () => (delivery.releaseAll(), await worker.stop()));
    await polling.pass(0);
    expect(delivery.running()).toBe(2);
    await polling.pass(100); // 10 polls
    expect(ids.map((id) => services.jobs.get(id)!.state).sort()).toEqual(['queued', 'queued', 'running', 'running']);
    delivery.releaseAll();
    await waitFor(
      () => delivery.running() === 2 && ids.filter((id) => services.jobs.get(id)!.state === 'succeeded').length === 2,
    );
    delivery.releaseAll();
    await waitFor(() => ids.every((id) => services.jobs.get(id)!.state === 'succeeded'));
    expect(delivery.mostAtOnce()).toBe(2);
  });

  it('a job enqueued while the worker is idle is claimed at once, not at the next poll (bug: up to pollMs before a pushed batch started)', async () => {
    const ingest = defineJob({ kind: 'test.ingest', lane: 'ingest', payload: z.object({}), handler: async () => {} });
    polling.start();
    const worker = new JobWorker(services.jobs, [ingest], services, {
      lanes: ONE_EACH,
      pollMs: 60_000,
      onOutcome: () => void changes.emit('change'),
    });
    worker.start();
    stops.push(() => worker.stop());
    await polling.pass(50); // the first poll found nothing; the next is a minute away
    const job = services.jobs.enqueue(ingest, {});
    await polling.pass(0); // no time passes: the enqueue itself wakes the worker
    await waitFor(() => services.jobs.get(job.id)?.state === 'succeeded');
  });

  it('a finished job starts the next due one before the event loop runs anything else (bug: on a timer, an extracted content.ingest batch wrote first and the extraction worker idled meanwhile)', async () => {
    const started: string[] = [];
    let startedWhenTimerFired: string[] | undefined;
    const ingest = defineJob({
      kind: 'test.ingest',
      lane: 'ingest',
      payload: z.object({ name: z.string() }),
      handler: async ({ name }) => {
        started.push(name);
        // A timer set as the first job ends stands for whatever the loop had waiting (a worker thread's message).
        if (name === 'first') setTimeout(() => void ((startedWhenTimerFired = [...started]), changes.emit('timer')), 0);
      },
    });
    services.jobs.enqueue(ingest, { name: 'first' }, { runAt: Date.now() - 1_000 });
    services.jobs.enqueue(ingest, { name: 'second' });
    const worker = new JobWorker(services.jobs, [ingest], services, {
      lanes: ONE_EACH,
      pollMs: 60_000,
      onOutcome: () => void changes.emit('change'),
    });
    worker.start();
    stops.push(() => worker.stop());
    await until(changes, 'timer', () => startedWhenTimerFired !== undefined, 'the timer the first job set', 5_000);
    expect(startedWhenTimerFired).toEqual(['first', 'second']);
  });

  it('jobs that finish without waiting do not hold the event loop until the queue is empty: a timer set by the first one fires while most still wait', async () => {
    let doneWhenTimerFired: number | undefined;
    let first = true;
    const quick = defineJob({
      kind: 'test.quick',
      lane: 'maintenance',
      payload: z.object({}),
      handler: async () => {
        if (first)
          setTimeout(
            () => void (doneWhenTimerFired = ids.filter((id) => services.jobs.get(id)?.state === 'succeeded').length),
            0,
          );
        first = false;
      },
    });
    const ids = Array.from({ length: 60 }, () => services.jobs.enqueue(quick, {}).id);
    const worker = new JobWorker(services.jobs, [quick], services, {
      lanes: ONE_EACH,
      pollMs: 60_000,
      onOutcome: () => void changes.emit('change'),
    });
    worker.start();
    stops.push(() => worker.stop());
    await waitFor(() => ids.every((id) => services.jobs.get(id)?.state === 'succeeded'));
    expect(doneWhenTimerFired).toBeLessThan(20);
  });

  it('stop() waits for the jobs in flight of every lane', async () => {
    const delivery = createHangingJob('test.deliver', 'delivery');
    const publish = createHangingJob('test.publish', 'publish');
    const a = services.jobs.enqueue(delivery.job, {});
    const b = services.jobs.enqueue(publish.job, {});
    const worker = startWorker([delivery.job, publish.job], ONE_EACH);
    await waitFor(() => delivery.running() === 1 && publish.running() === 1);
    let stopped = false;
    const stopping = worker.stop().then(() => void (stopped = true));
    await new Promise((resolve) => setImmediate(resolve)); // a stop that did not wait would have settled by now
    expect(stopped).toBe(false);
    delivery.releaseAll();
    publish.releaseAll();
    await stopping;
    expect([services.jobs.get(a.id)?.state, services.jobs.get(b.id)?.state]).toEqual(['succeeded', 'succeeded']);
  });
});

describe('lane settings', () => {
  it('default to ingest 8, publish 1, delivery 4, maintenance 1, embeddings 1, and each is NODECTL_JOB_LANE_<LANE>_CONCURRENCY', () => {
    expect(laneConcurrency(resolveConfig({ env: {} }).settings)).toEqual({
      ingest: 8,
      publish: 1,
      delivery: 4,
      maintenance: 1,
      embeddings: 1,
    });
    const env = {
      NODECTL_JOB_LANE_INGEST_CONCURRENCY: '3',
      NODECTL_JOB_LANE_PUBLISH_CONCURRENCY: '2',
      NODECTL_JOB_LANE_DELIVERY_CONCURRENCY: '8',
      NODECTL_JOB_LANE_MAINTENANCE_CONCURRENCY: '2',
      NODECTL_JOB_LANE_EMBEDDINGS_CONCURRENCY: '3',
    };
    expect(laneConcurrency(resolveConfig({ env }).settings)).toEqual({
      ingest: 3,
      publish: 2,
      delivery: 8,
      maintenance: 2,
      embeddings: 3,
    });
    expect(() => resolveConfig({ env: { NODECTL_JOB_LANE_DELIVERY_CONCURRENCY: '0' } })).toThrow(
      /jobLaneDeliveryConcurrency \(from environment variable NODECTL_JOB_LANE_DELIVERY_CONCURRENCY\)/,
    );
  });

  it('the setting from before lanes (workerConcurrency, NODECTL_WORKER_CONCURRENCY) still sizes the ingest lane unless the lane setting is given (bug: a config.json naming it failed start-up)', () => {
    expect(laneConcurrency(resolveConfig({ env: { NODECTL_WORKER_CONCURRENCY: '5' } }).settings).ingest).toBe(5);
    expect(
      laneConcurrency(
        resolveConfig({ env: { NODECTL_WORKER_CONCURRENCY: '5', NODECTL_JOB_LANE_INGEST_CONCURRENCY: '3' } }).settings,
      ).ingest,
    ).toBe(3);
    const dir = mkdtempSync(join(tmpdir(), 'nodectl-lanes-'));
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ workerConcurrency: 4 }));
    const config = resolveConfig({ env: {}, configFile: file });
    expect(config.settings.jobLaneIngestConcurrency).toBe(4);
    expect(config.sources.jobLaneIngestConcurrency).toBe('file');
  });
});
