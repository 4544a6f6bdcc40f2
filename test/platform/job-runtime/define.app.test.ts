import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { resolveConfig } from '../../../src/platform/config/config.js';
import { type AppServices } from '../../../src/platform/app/services.js';
import { createServices } from '../../../src/daemon/create-services.js';
import {
  defineJob,
  indexJobsByKind,
  JOB_LANES,
  JobPayloadError,
  type JobDefinition,
} from '../../../src/platform/job-runtime/define-job.js';
import { contentIngestJob } from '../../../src/ingest/graph/content-ingest-job.js';
import { JOBS } from '../../../src/daemon/job-definitions.js';
import { enqueueDuePeriodicJobs, periodicJobs } from '../../../src/platform/job-runtime/job-scheduler.js';
import { JobWorker, laneConcurrency } from '../../../src/platform/job-runtime/job-worker.js';
import { makeTempDir } from '../../helpers/paths.js';

const noop = async () => {};

describe('job definitions', () => {
  it('defineJob refuses a definition that could never run: a bad kind, an unknown lane, a bad interval, a schedule whose {} payload fails the schema', () => {
    const base = { kind: 'test.ok', lane: 'ingest' as const, payload: z.object({}), handler: noop };
    expect(() => defineJob({ ...base, kind: 'Content Ingest' })).toThrow(
      /job kind "Content Ingest" must be dot-separated lower-case words/,
    );
    expect(() => defineJob({ ...base, kind: 'ingest' })).toThrow(/must be dot-separated/);
    expect(() => defineJob({ ...base, lane: 'fast' as never })).toThrow(
      'job test.ok: lane must be one of ingest, publish, delivery, maintenance, embeddings; got fast',
    );
    expect(() => defineJob({ ...base, schedule: { intervalSeconds: 0 } })).toThrow(
      'schedule.intervalSeconds must be a positive whole number; got 0',
    );
    expect(() =>
      defineJob({ ...base, payload: z.object({ website_id: z.string() }), schedule: { intervalSeconds: 60 } }),
    ).toThrow('job test.ok: a scheduled job is enqueued with the payload {}, which its schema rejects');
    expect(defineJob(base).kind).toBe('test.ok');
  });

  it('every kind is defined once, in a known lane, and the lanes are the ones the issue names', () => {
    expect(JOB_LANES).toEqual(['ingest', 'publish', 'delivery', 'maintenance', 'embeddings']);
    const byKind = indexJobsByKind(JOBS);
    expect(Object.fromEntries([...byKind].map(([kind, job]) => [kind, job.lane]))).toEqual({
      'content.ingest': 'ingest',
      'embeddings.compute': 'embeddings',
      'node.republish': 'publish',
      'maintenance.expire': 'maintenance',
      'maintenance.rate_limits.prune': 'maintenance',
      'maintenance.jobs.prune': 'maintenance',
      'maintenance.accounts.prune': 'maintenance',
      'accounts.mail': 'delivery',
      'org.transfer.execute': 'maintenance',
      'org.erase': 'maintenance',
      'webhooks.dispatch': 'maintenance',
      'webhook.deliver': 'delivery',
      'maintenance.webhooks.prune': 'maintenance',
      'connector.heartbeat.check': 'maintenance',
      'verification.check': 'maintenance',
      'analytics.aggregate': 'maintenance',
    });
    const twice = defineJob({ kind: 'test.twice', lane: 'ingest', payload: z.object({}), handler: noop });
    expect(() => indexJobsByKind([twice, twice])).toThrow('job kind test.twice is defined twice');
  });

  it('the scheduler enqueues what the definitions schedule, and nothing else (no second list)', () => {
    expect(periodicJobs(JOBS).map(({ job, intervalSeconds }) => [job.kind, intervalSeconds])).toEqual([
      ['maintenance.expire', 300],
      ['maintenance.rate_limits.prune', 3600],
      ['maintenance.jobs.prune', 3600],
      ['maintenance.accounts.prune', 86_400],
      ['webhooks.dispatch', 60],
      ['maintenance.webhooks.prune', 86_400],
      ['connector.heartbeat.check', 300],
      ['verification.check', 3600],
      ['analytics.aggregate', 3600],
    ]);
    const temp = makeTempDir();
    const services = createServices(resolveConfig({ env: { NODECTL_DATA_DIR: temp.dir } }), { now: () => 5_000 });
    try {
      const tick = defineJob({
        kind: 'test.tick',
        lane: 'maintenance',
        payload: z.object({}),
        schedule: { intervalSeconds: 120 },
        handler: noop,
      });
      const unscheduled = defineJob({ kind: 'test.once', lane: 'maintenance', payload: z.object({}), handler: noop });
      expect(enqueueDuePeriodicJobs(services.controlDb, services.jobs, [tick, unscheduled], 5_000)).toEqual([
        'test.tick',
      ]);
      expect(services.controlDb.prepare('SELECT kind, interval_seconds, next_run_at FROM schedules').all()).toEqual([
        { kind: 'test.tick', interval_seconds: 120, next_run_at: 125_000 },
      ]);
    } finally {
      services.close();
      temp.cleanup();
    }
  });
});

describe('typed payloads', () => {
  let services: AppServices;
  let cleanup: () => void;
  beforeEach(() => {
    const temp = makeTempDir();
    cleanup = temp.cleanup;
    services = createServices(resolveConfig({ env: { NODECTL_DATA_DIR: temp.dir } }));
  });
  afterEach(() => {
    services.close();
    cleanup();
  });

  const drain = (jobs: readonly JobDefinition[], onOutcome?: (outcome: string) => void) =>
    new JobWorker(services.jobs, jobs, services, {
      lanes: laneConcurrency(services.config.settings),
      pollMs: 1000,
      onOutcome: (_job, outcome) => onOutcome?.(outcome),
    }).drain();
  const jobCount = () => services.controlDb.prepare('SELECT COUNT(*) FROM jobs').pluck().get();

  it("regression: payloads were unknown; an enqueue whose payload fails the kind's schema throws JobPayloadError naming the kind and each field, and stores nothing", () => {
    const enqueue = () =>
      services.jobs.enqueue(contentIngestJob, { website_id: '', raw_content_ids: 'raw_1' } as never);
    expect(enqueue).toThrow(JobPayloadError);
    expect(enqueue).toThrow(
      /^content\.ingest payload is invalid: website_id: Too small: .*; raw_content_ids: Invalid input: expected array, received string$/,
    );
    expect(jobCount()).toBe(0);
  });

  it('the handler receives the payload its schema parsed: defaults filled in, unknown keys dropped (also in the stored row)', async () => {
    const seen: unknown[] = [];
    const job = defineJob({
      kind: 'test.typed',
      lane: 'ingest',
      payload: z.object({ n: z.number().default(3) }),
      handler: async (payload) => void seen.push(payload),
    });
    const stored = services.jobs.enqueue(job, { extra: true } as never);
    expect(stored.payload).toEqual({ n: 3 });
    expect(await drain([job])).toBe(1);
    expect(seen).toEqual([{ n: 3 }]);
  });

  it('a stored payload that no longer parses (the schema changed) is dead-lettered with the zod message on claim: no crash, no retries, the handler never runs, the next job still runs', async () => {
    const v1 = defineJob({
      kind: 'test.changed',
      lane: 'ingest',
      payload: z.object({ site: z.string() }),
      handler: noop,
    });
    const ran: unknown[] = [];
    const v2 = defineJob({
      kind: 'test.changed',
      lane: 'ingest',
      payload: z.object({ website_id: z.string() }),
      handler: async (payload) => void ran.push(payload),
    });
    const old = services.jobs.enqueue(v1, { site: 'web_1' });
    const fresh = services.jobs.enqueue(v2, { website_id: 'web_2' });
    const outcomes: string[] = [];
    expect(await drain([v2], (o) => outcomes.push(o))).toBe(2);
    expect(services.jobs.get(old.id)).toMatchObject({
      state: 'dead',
      attempts: 1,
      lastError:
        'test.changed payload no longer matches its schema: website_id: Invalid input: expected string, received undefined',
    });
    expect(services.jobs.get(fresh.id)?.state).toBe('succeeded');
    expect(ran).toEqual([{ website_id: 'web_2' }]);
    expect(outcomes.sort()).toEqual(['dead', 'succeeded']);
  });

  it('a queued coalesced job whose payload no longer parses is dead-lettered when the next request merges, and a fresh job takes its key', () => {
    const job = defineJob({
      kind: 'test.merged',
      lane: 'publish',
      payload: z.object({ ids: z.array(z.string()) }),
      handler: noop,
    });
    const merge = (add: string[]) => ({
      dedupeKey: 'k',
      merge: (queued: { ids: string[] }) => ({ ids: [...queued.ids, ...add] }),
    });
    const first = services.jobs.enqueue(job, { ids: ['a'] }, merge(['a']));
    expect(services.jobs.enqueue(job, { ids: ['b'] }, merge(['b']))).toMatchObject({
      id: first.id,
      payload: { ids: ['a', 'b'] },
    });
    services.controlDb.prepare('UPDATE jobs SET payload = ? WHERE id = ?').run('{"ids":"a"}', first.id);
    const next = services.jobs.enqueue(job, { ids: ['c'] }, merge(['c']));
    expect(next.id).not.toBe(first.id);
    expect(next.payload).toEqual({ ids: ['c'] });
    expect(services.jobs.get(first.id)).toMatchObject({
      state: 'dead',
      lastError: 'test.merged payload is invalid: ids: Invalid input: expected array, received string',
    });
  });
});
