import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verificationCheckJob } from '../../../src/control/verification/check-job.js';
import { grantManualVerification } from '../../../src/control/verification/grant-manual.js';
import { verificationDeps } from '../../../src/control/verification/deps.js';
import { createWebsite } from '../../../src/control/records/websites.js';
import { loadWebsiteInfo } from '../../../src/control/records/load-website.js';
import { startLoopbackHttp, type LoopbackHttp } from '../../platform/net/loopback-servers.js';
import { startHarness, type Harness } from '../websites/harness.js';

/**
 * Verification that forgives an early check (docs/verification.md "Checking too early"): a
 * failed check keeps the challenge and its token until it expires 7 days after it was issued,
 * the hourly verification.check job re-checks pending challenges, a check never demotes a
 * manual grant, and every method has one name in answers whatever name the request used.
 * DNS and the web are servers on loopback; the clock is fake.
 */

const MINUTE = 60 * 1000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
let h: Harness;
let owner: { id: string; token: string };
let org: string;

beforeAll(async () => {
  h = await startHarness();
  owner = h.user('owner');
  org = h.organization(owner, 'business');
}, 60_000);
afterAll(async () => h?.close());

const path = (id: string, rest = '') => `/v1/websites/${id}/verification${rest}`;
const iso = (ms: number) => new Date(ms).toISOString();
const check = (id: string) => h.call('POST', path(id, '/check'), owner.token);
const stateOf = async (id: string) => (await h.call('GET', path(id), owner.token)).json.data;
const steps = (id: string) =>
  h.t.services.controlDb
    .prepare(
      "SELECT event || ' ' || result || ' ' || from_state || '->' || to_state || ' ' || actor FROM verification_events WHERE website_id = ? ORDER BY rowid",
    )
    .pluck()
    .all(id) as string[];
const changes = (id: string) =>
  (
    h.t.services.controlDb
      .prepare(`SELECT data FROM events_outbox WHERE website_id = ? AND type = 'verification.changed' ORDER BY rowid`)
      .pluck()
      .all(id) as string[]
  ).map((d) => `${JSON.parse(d).previous_state}->${JSON.parse(d).state}`);

async function runCheckJob(): Promise<void> {
  h.t.services.jobs.enqueue(verificationCheckJob, {});
  await h.runJobs();
}

/** A website with an open dns_txt challenge whose record is not there yet. */
async function challenged(domain: string) {
  const site = await h.website(org, owner.token, domain);
  const res = await h.call('POST', path(site.id, '/challenge'), owner.token, { method: 'dns_txt' });
  expect(res.status, res.body).toBe(201);
  h.dns.set(`_nodectl-verify.${domain}`, 'NXDOMAIN');
  return { ...site, token: res.json.data.challenge.token as string, issuedAt: h.clock.now() };
}

describe('a check before the record has propagated', () => {
  it('keeps the challenge pending with its token, shows the failures, when and why; the owner checks again and verifies without a new challenge', async () => {
    const site = await challenged('early.example.com');
    h.clock.advance(MINUTE);
    const early = await check(site.id);
    expect(early.status, early.body).toBe(200);
    expect(early.json.data).toMatchObject({
      state: 'pending',
      trustTier: 'unverified',
      trustScore: 0,
      challenge: { method: 'dns_txt', token: site.token },
      failureCount: 1,
      lastCheckedAt: iso(h.clock.now()),
      lastFailureReason: expect.stringContaining('NXDOMAIN'),
      challengeExpiresAt: iso(site.issuedAt + 7 * DAY),
      check: { method: 'dns_txt', passed: false },
    });

    h.clock.advance(MINUTE);
    h.dns.set(`_nodectl-verify.${site.domain}`, { TXT: [['nodectl-verify=an-old-token']] });
    const again = await check(site.id);
    expect(again.status, again.body).toBe(200);
    expect(again.json.data).toMatchObject({
      state: 'pending',
      failureCount: 2,
      lastFailureReason: expect.stringContaining('an-old-token'),
    });
    expect(await stateOf(site.id)).toMatchObject({
      state: 'pending',
      failureCount: 2,
      lastCheckedAt: iso(h.clock.now()),
      lastFailureReason: expect.stringContaining('an-old-token'),
      challengeExpiresAt: iso(site.issuedAt + 7 * DAY),
    });

    h.clock.advance(MINUTE);
    h.dns.set(`_nodectl-verify.${site.domain}`, { TXT: [[`nodectl-verify=${site.token}`]] });
    const passed = await check(site.id);
    expect(passed.json.data).toMatchObject({
      state: 'verified',
      trustScore: 1,
      challenge: { token: site.token },
      failureCount: 0,
      lastFailureReason: null,
      challengeExpiresAt: null,
    });
    expect(steps(site.id)).toEqual([
      `challenge issued pending->pending user:${owner.id}`,
      `check failed pending->pending user:${owner.id}`,
      `check failed pending->pending user:${owner.id}`,
      `check passed pending->verified user:${owner.id}`,
    ]);
    // A failed check changes no state: the only verification.changed is the pass.
    expect(changes(site.id)).toEqual(['pending->verified']);
  });

  it('expires 7 days after the challenge: the check is 409 verification.challenge_required saying so, the domain is failed; a new challenge keeps the token and opens a new week', async () => {
    const site = await challenged('expiring.example.com');
    h.clock.advance(MINUTE);
    expect((await check(site.id)).json.data.state).toBe('pending');
    h.clock.set(site.issuedAt + 7 * DAY - 1);
    expect((await check(site.id)).json.data).toMatchObject({ state: 'pending', failureCount: 2 });

    h.clock.set(site.issuedAt + 7 * DAY);
    const expired = await check(site.id);
    expect({ status: expired.status, code: expired.json.error?.code }).toEqual({
      status: 409,
      code: 'verification.challenge_required',
    });
    expect(expired.json.error.message).toContain(`expired at ${iso(site.issuedAt + 7 * DAY)}`);
    expect(expired.json.error.message).toContain('/verification/challenge');
    expect(await stateOf(site.id)).toMatchObject({ state: 'failed', challengeExpiresAt: null });
    expect(steps(site.id).at(-1)).toBe('lapse lapsed pending->failed system');

    const renewed = await h.call('POST', path(site.id, '/challenge'), owner.token, { method: 'dns_txt' });
    expect(renewed.json.data).toMatchObject({
      state: 'pending',
      challenge: { token: site.token },
      challengeExpiresAt: iso(h.clock.now() + 7 * DAY),
    });
    h.dns.set(`_nodectl-verify.${site.domain}`, { TXT: [[`nodectl-verify=${site.token}`]] });
    expect((await check(site.id)).json.data.state).toBe('verified');
  });
});

describe('the hourly verification.check job and pending challenges', () => {
  it('re-checks a pending challenge every hour, so the domain verifies by itself once the record appears', async () => {
    const site = await challenged('by-itself.example.com');
    h.clock.advance(MINUTE);
    expect((await check(site.id)).json.data.state).toBe('pending');
    const before = steps(site.id).length;
    // Just checked by the owner: the next run leaves it for later.
    await runCheckJob();
    expect(steps(site.id).length).toBe(before);

    h.clock.advance(HOUR);
    await runCheckJob();
    expect(steps(site.id).slice(before)).toEqual(['recheck failed pending->pending system']);
    expect(await stateOf(site.id)).toMatchObject({ state: 'pending', failureCount: 2 });

    h.dns.set(`_nodectl-verify.${site.domain}`, { TXT: [[`nodectl-verify=${site.token}`]] });
    h.clock.advance(HOUR);
    await runCheckJob();
    expect(await stateOf(site.id)).toMatchObject({ state: 'verified', method: 'dns_txt', trustScore: 1 });
    expect(steps(site.id).at(-1)).toBe('recheck passed pending->verified system');
  });

  it('expires a challenge left 7 days without a passing check (failed), and re-checks it no more', async () => {
    const site = await challenged('left-alone.example.com');
    h.clock.set(site.issuedAt + 7 * DAY);
    await runCheckJob();
    expect(await stateOf(site.id)).toMatchObject({ state: 'failed', trustScore: 0 });
    const after = steps(site.id);
    expect(after.at(-1)).toBe('lapse lapsed pending->failed system');
    h.clock.advance(HOUR);
    await runCheckJob();
    expect(steps(site.id)).toEqual(after);
  });
});

describe('a manual grant', () => {
  it('is left as it is by a failing check of another method; a passing one moves it up', async () => {
    const site = await h.website(org, owner.token, 'vouched.example.com');
    grantManualVerification(verificationDeps(h.t.services), {
      websiteId: site.id,
      domain: site.domain,
      actor: 'operator',
      note: 'known customer',
    });
    const challenge = await h.call('POST', path(site.id, '/challenge'), owner.token, { method: 'dns_txt' });
    h.dns.set(`_nodectl-verify.${site.domain}`, 'NXDOMAIN');
    const failed = await check(site.id);
    expect(failed.status, failed.body).toBe(200);
    expect(failed.json.data).toMatchObject({
      state: 'verified',
      method: 'manual',
      trustTier: 'manual',
      trustScore: 0.5,
      graceUntil: null,
      failureCount: 1,
      lastFailureReason: expect.stringContaining('NXDOMAIN'),
      check: { method: 'dns_txt', passed: false },
    });
    expect(changes(site.id)).toEqual(['pending->verified']);

    h.dns.set(`_nodectl-verify.${site.domain}`, { TXT: [[challenge.json.data.challenge.proof]] });
    expect((await check(site.id)).json.data).toMatchObject({
      state: 'verified',
      method: 'dns_txt',
      trustScore: 1,
      failureCount: 0,
    });
  });
});

describe('method names', () => {
  it('a challenge takes the trust tier names and html_meta as aliases, and answers and records the contract names', async () => {
    const site = await h.website(org, owner.token, 'names.example.com');
    for (const [given, named] of [
      ['well_known', 'well_known_file'],
      ['plugin_signed', 'plugin'],
      ['html_meta', 'meta_tag'],
      ['dns_txt', 'dns_txt'],
    ]) {
      const res = await h.call('POST', path(site.id, '/challenge'), owner.token, { method: given });
      expect({ given, status: res.status, method: res.json.data?.challenge?.method }).toEqual({
        given,
        status: 201,
        method: named,
      });
      expect((await stateOf(site.id)).history[0]).toMatchObject({ event: 'challenge', method: named });
    }
  });

  it('a website created verified (admin website create --verified) takes either name and answers the contract name', async () => {
    const db = h.t.services.controlDb;
    for (const [given, named, tier] of [
      ['well_known', 'well_known_file', 'well_known'],
      ['plugin_signed', 'plugin', 'plugin_signed'],
      ['plugin', 'plugin', 'plugin_signed'],
      ['well_known_file', 'well_known_file', 'well_known'],
    ] as const) {
      const domain = `created-${given.replace(/_/g, '-')}.example.com`;
      const created = createWebsite(db, { organizationId: org, domain, name: domain, verifiedMethod: given });
      expect({ given, method: created.verification.method }).toEqual({ given, method: named });
      expect(await stateOf(created.id)).toMatchObject({ state: 'verified', method: named, trustTier: tier });
      expect(db.prepare('SELECT method FROM verifications WHERE website_id = ?').pluck().get(created.id)).toBe(named);
      expect(loadWebsiteInfo(db, created.id)?.verification).toEqual({ method: tier, state: 'verified' });
    }
  });
});

describe('the re-check of a pending challenge goes through the guarded fetcher', () => {
  let web: LoopbackHttp;
  let strict: Harness;
  beforeAll(async () => {
    web = await startLoopbackHttp((_req, res) => void res.writeHead(200).end('nodectl-verify=x'));
    strict = await startHarness({
      verificationBaseUrl: `http://{domain}:${web.port}`,
      fetchAllowPrivateAddresses: false,
    });
  }, 60_000);
  afterAll(async () => {
    await strict?.close();
    await web?.close();
  });

  it('with private addresses not allowed, a domain resolving to loopback fails the re-check without a request', async () => {
    const user = strict.user('strict');
    const orgId = strict.organization(user, 'pro');
    strict.dns.set('inside.example.com', { A: ['127.0.0.1'] });
    const site = await strict.website(orgId, user.token, 'inside.example.com');
    await strict.call('POST', path(site.id, '/challenge'), user.token, { method: 'well_known_file' });
    strict.clock.advance(HOUR);
    strict.t.services.jobs.enqueue(verificationCheckJob, {});
    await strict.runJobs();
    const state = (await strict.call('GET', path(site.id), user.token)).json.data;
    expect(state).toMatchObject({
      state: 'pending',
      failureCount: 1,
      lastFailureReason: expect.stringMatching(/127\.0\.0\.1.*loopback/),
    });
    expect(state.history[0]).toMatchObject({ event: 'recheck', result: 'failed', actor: 'system' });
    expect(web.requests).toEqual([]);
  });
});
