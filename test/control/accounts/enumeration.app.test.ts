import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createUser } from '../../../src/control/records/users.js';
import type { InjectAnswer } from '../../helpers/app.js';
import { openAuthApp, PASSWORD, type AuthApp } from './http-support.js';

let a: AuthApp | undefined;
afterEach(async () => {
  await a?.close();
  a = undefined;
});

/** An answer without what differs per request (its request id). */
const shapeOf = (answer: InjectAnswer) => ({
  status: answer.status,
  body: {
    ...answer.json,
    data: { ...answer.json.data, userId: String(answer.json.data?.userId).replace(/^usr_[0-9A-Z]{26}$/, 'usr_<id>') },
    meta: { ...answer.json.meta, requestId: '<id>' },
  },
  contentType: answer.headers['content-type'],
});
const count = (app: AuthApp, table: string) =>
  app.services.controlDb.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get() as number;
const mailJobs = (app: AuthApp) => app.services.jobs.list({ kind: 'accounts.mail' }).reverse();
/** An account written straight to control.sqlite, as register would have made it. */
const seedAccount = (app: AuthApp, email: string) =>
  createUser(app.services.controlDb, { email, password: PASSWORD }, app.clock.now());

describe('register does not tell whether an address has an account (issue 36, F5)', () => {
  it('a taken address answers exactly like a new one (201, a user id of the same form); no account or organization is made, and the owner is mailed instead', async () => {
    a = await openAuthApp();
    await seedAccount(a, 'ada@example.com');
    const fresh = await a.post('/v1/auth/register', { email: 'new@example.com', password: PASSWORD, orgName: 'A' });
    const [users, organizations] = [count(a, 'users'), count(a, 'organizations')];
    const taken = await a.post('/v1/auth/register', { email: 'ADA@example.com', password: PASSWORD, orgName: 'B' });
    expect(shapeOf(taken)).toEqual(shapeOf(fresh));
    expect(shapeOf(fresh)).toMatchObject({
      status: 201,
      body: { ok: true, data: { userId: 'usr_<id>', emailVerificationSent: true } },
    });
    // The taken address's answer names nobody: not its owner, not the account just made.
    const takenId = taken.json.data.userId as string;
    expect(a.services.controlDb.prepare('SELECT COUNT(*) FROM users WHERE id = ?').pluck().get(takenId)).toBe(0);
    expect([count(a, 'users'), count(a, 'organizations')]).toEqual([users, organizations]);

    const toAda = (await a.mails()).filter((m) => m.includes('To: ada@example.com\r\n'));
    expect(toAda.filter((m) => m.includes('Subject: Someone tried to register with your address'))).toHaveLength(1);
    expect(toAda).toHaveLength(1);
    const toNew = (await a.mails()).filter((m) => m.includes('To: new@example.com\r\n'));
    expect(toNew.map((m) => /Subject: (.*)\r\n/.exec(m)?.[1])).toEqual(['Confirm your email address']);
  });

  it('the request only defers the mail: one accounts.mail job for a new address and one for a taken one, nothing sent before it runs', async () => {
    a = await openAuthApp();
    await seedAccount(a, 'ada@example.com');
    const before = (await a.mails()).length;
    const jobs = mailJobs(a).length;
    await a.post('/v1/auth/register', { email: 'new@example.com', password: PASSWORD, orgName: 'A' });
    await a.post('/v1/auth/register', { email: 'ada@example.com', password: PASSWORD, orgName: 'A' });
    expect(
      mailJobs(a)
        .slice(jobs)
        .map((j) => [j.state, (j.payload as { kind: string }).kind])
        .sort(),
    ).toEqual([
      ['queued', 'email_verification'],
      ['queued', 'registration_attempt'],
    ]);
    expect(await a.runJobs()).toBe(2);
    expect((await a.mails()).length).toBe(before + 2);
  });
});

describe('forgot-password does the same work for known and unknown addresses (issue 36, F6)', () => {
  it('the request enqueues one accounts.mail job either way and sends nothing itself; only the job looks the address up, issues the token and mails', async () => {
    a = await openAuthApp();
    await seedAccount(a, 'ada@example.com');
    const mailsBefore = (await a.mails()).length;
    const tokensBefore = count(a, 'mail_tokens');
    const jobsBefore = mailJobs(a).length;

    const known = await a.post('/v1/auth/password/forgot', { email: 'ada@example.com' });
    const unknown = await a.post('/v1/auth/password/forgot', { email: 'nobody@example.com' });
    expect(shapeOf(known)).toEqual(shapeOf(unknown));
    // Nothing of the mail happened in the request, for either address.
    expect(count(a, 'mail_tokens')).toBe(tokensBefore);
    const queued = mailJobs(a).slice(jobsBefore);
    expect(
      queued.map((j) => [j.state, j.payload]).sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y))),
    ).toEqual([
      ['queued', { kind: 'password_reset', email: 'ada@example.com' }],
      ['queued', { kind: 'password_reset', email: 'nobody@example.com' }],
    ]);

    expect(await a.runJobs()).toBe(2);
    const mails = (await a.mails()).slice(mailsBefore);
    expect(mails).toHaveLength(1);
    expect(mails[0]).toContain('To: ada@example.com\r\n');
    expect(mails[0]).toContain('Subject: Reset your password');
    expect(count(a, 'mail_tokens')).toBe(tokensBefore + 1);
    expect(mailJobs(a).map((j) => j.state)).not.toContain('dead');
  });
});

/** A loopback port nothing listens on (taken, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('the accounts.mail job', () => {
  it('a mail transport that fails fails the attempt: the job is retried later with the error, not lost', async () => {
    a = await openAuthApp({ mailTransport: 'smtp', smtpHost: '127.0.0.1', smtpPort: await closedPort() });
    await seedAccount(a, 'ada@example.com');
    expect((await a.post('/v1/auth/password/forgot', { email: 'ada@example.com' })).status).toBe(202);
    expect(await a.runJobs()).toBe(1);
    const [job] = mailJobs(a);
    expect(job).toMatchObject({ state: 'queued', attempts: 1, lastError: expect.stringMatching(/not sent/) });
    expect(job!.runAt).toBeGreaterThan(a.clock.now());
  });
});
