import { afterEach, describe, expect, it } from 'vitest';
import { accountsPruneJob } from '../../../src/control/accounts/prune-job.js';
import { JOBS } from '../../../src/daemon/job-definitions.js';
import { enqueueDuePeriodicJobs, periodicJobs } from '../../../src/platform/job-runtime/job-scheduler.js';
import { JobWorker, laneConcurrency } from '../../../src/platform/job-runtime/job-worker.js';
import { openAuthApp, PASSWORD, registerAndLogin, type AuthApp } from './http-support.js';

const DAY_MS = 24 * 3600_000;
let a: AuthApp | undefined;
afterEach(async () => {
  await a?.close();
  a = undefined;
});

describe('maintenance.accounts.prune', () => {
  it('pruneAccountRecords was never scheduled: the daily maintenance-lane job deletes sessions and mailed tokens past their expiry, and keeps live ones', async () => {
    expect(JOBS).toContain(accountsPruneJob);
    expect(accountsPruneJob.lane).toBe('maintenance');
    expect(periodicJobs(JOBS).find((p) => p.job === accountsPruneJob)?.intervalSeconds).toBe(86_400);

    a = await openAuthApp();
    const app = a;
    const count = (table: string) =>
      (app.services.controlDb.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
    const runSchedule = async () => {
      enqueueDuePeriodicJobs(app.services.controlDb, app.services.jobs, JOBS, app.clock.now());
      await new JobWorker(app.services.jobs, JOBS, app.services, {
        lanes: laneConcurrency(app.services.config.settings),
        pollMs: 1000,
      }).drain();
    };

    const user = await registerAndLogin(a, 'ada@example.com');
    await a.post('/v1/auth/password/forgot', { email: user.email });
    await a.mails();
    expect([count('sessions'), count('mail_tokens')]).toEqual([1, 2]);
    await runSchedule();
    expect([count('sessions'), count('mail_tokens')]).toEqual([1, 2]);

    // 31 days on: the first session (30 days) and both mailed tokens have expired; a new session has not.
    a.clock.advance(31 * DAY_MS);
    expect((await a.post('/v1/auth/login', { email: user.email, password: PASSWORD })).status).toBe(200);
    await runSchedule();
    expect([count('sessions'), count('mail_tokens')]).toEqual([1, 0]);
    expect(count('refresh_tokens')).toBe(1);
    expect(a.services.jobs.list({ kind: 'maintenance.accounts.prune', state: 'dead' })).toEqual([]);
  });
});
