import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signRequest } from '../../../src/platform/contract/signing.js';
import { createConnector } from '../../../src/control/connectors/connectors.js';
import { readMasterKey } from '../../../src/platform/storage/data-dir.js';
import { createApiKey } from '../../../src/control/records/api-keys.js';
import {
  buildTestApp,
  fakeClock,
  injectJson,
  seedWebsite,
  type FakeClock,
  type InjectAnswer,
  type SeededWebsite,
  type TestApp,
} from '../../helpers/app.js';

/**
 * Rate limits on every route (docs/contract.md#rate-limits), in process through inject(): fixed
 * one-minute windows counted in control.sqlite, 429 quota.rate_limited with Retry-After and the
 * RateLimit header fields. The limits are set small here to keep the tests fast; one test runs
 * the real ingest default.
 */

const MINUTE = 60_000;

interface Harness {
  t: TestApp;
  clock: FakeClock;
  site: SeededWebsite;
}

async function harness(settings: Record<string, unknown> = {}): Promise<Harness> {
  const clock = fakeClock(Date.parse('2026-03-02T10:00:15Z'));
  const t = await buildTestApp({ clock, settings });
  return { t, clock, site: await seedWebsite(t.services) };
}

/** A signed ingest request as a connector sends it, from `address`. */
async function signed(
  h: Harness,
  path: string,
  body: Record<string, unknown>,
  o: { token?: string; address?: string } = {},
): Promise<InjectAnswer> {
  const raw = JSON.stringify({ website_id: h.site.websiteId, ...body });
  const headers = {
    'content-type': 'application/json',
    'idempotency-key': randomUUID(),
    ...signRequest({
      token: o.token ?? h.site.connectorToken,
      websiteId: h.site.websiteId,
      path,
      body: raw,
      timestamp: Math.floor(h.clock.now() / 1000),
      nonce: randomUUID(),
    }),
  };
  return injectJson(h.t.app, {
    method: 'POST',
    url: path,
    headers,
    payload: raw,
    remoteAddress: o.address ?? '127.0.0.1',
  });
}
const heartbeat = (h: Harness, o: { token?: string; address?: string } = {}) =>
  signed(h, '/v1/ingest/heartbeat', { connector_state: 'idle' }, o);
const statuses = (answers: InjectAnswer[]) => answers.map((a) => a.status);

describe('ingest: requests per connector (bug "650 signed heartbeats in one second all pass")', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness({ ingestRateLimitPerMinute: 20 });
  }, 60_000);
  afterAll(async () => h?.t.close());

  it('the 20th request of a minute passes with RateLimit headers, the 21st is 429 quota.rate_limited with Retry-After until the window ends', async () => {
    const answers: InjectAnswer[] = [];
    for (let i = 0; i < 22; i++) answers.push(await heartbeat(h));
    expect(statuses(answers)).toEqual([...Array(20).fill(200), 429, 429]);
    expect(answers[0]!.headers).toMatchObject({
      'ratelimit-limit': '20',
      'ratelimit-remaining': '19',
      'ratelimit-reset': '45',
      'ratelimit-policy': '20;w=60',
    });
    expect(answers[19]!.headers['ratelimit-remaining']).toBe('0');
    const refused = answers[20]!;
    expect(refused.json).toMatchObject({
      ok: false,
      error: { code: 'quota.rate_limited', retryable: true, details: { limit: 20, window_seconds: 60 } },
    });
    expect(refused.headers).toMatchObject({
      'retry-after': '45',
      'ratelimit-limit': '20',
      'ratelimit-remaining': '0',
      'ratelimit-reset': '45',
    });
  });

  it('counts per connector: another connector of the same website still passes', async () => {
    const other = createConnector(h.t.services.controlDb, readMasterKey(h.t.services.layout), {
      websiteId: h.site.websiteId,
      connectorType: 'test',
      sourceTypes: ['page'],
    });
    expect((await heartbeat(h, { token: other.token })).status).toBe(200);
  });

  it('the next minute passes again', async () => {
    h.clock.advance(MINUTE);
    expect((await heartbeat(h)).status).toBe(200);
  });
});

describe('ingest: the real default, 600 per connector per minute', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness();
  }, 60_000);
  afterAll(async () => h?.t.close());

  it('of 650 signed heartbeats sent at once in one second, 600 pass and 50 are 429', async () => {
    const answers: InjectAnswer[] = [];
    for (let sent = 0; sent < 650; sent += 50)
      answers.push(...(await Promise.all(Array.from({ length: 50 }, () => heartbeat(h)))));
    const counts = statuses(answers).reduce<Record<number, number>>(
      (acc, s) => ((acc[s] = (acc[s] ?? 0) + 1), acc),
      {},
    );
    expect(counts).toEqual({ 200: 600, 429: 50 });
  }, 120_000);
});

describe('ingest: failed authentication per client address (bug "forged connector tokens with a self-consistent signature each write a nonce row")', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness({ ingestAuthFailuresPerMinute: 5 });
  }, 60_000);
  afterAll(async () => h?.t.close());

  const forged = () => `con_${randomBytes(8).toString('hex')}.${randomBytes(24).toString('base64url')}`;
  const nonces = () => (h.t.services.controlDb.prepare('SELECT COUNT(*) AS n FROM nonces').get() as { n: number }).n;

  it('5 forged tokens are 401 auth.token_revoked (each writes its nonce); the 6th is 429 before any check, and writes no nonce', async () => {
    const before = nonces();
    for (let i = 0; i < 5; i++)
      expect((await heartbeat(h, { token: forged(), address: '203.0.113.7' })).json.error.code).toBe(
        'auth.token_revoked',
      );
    expect(nonces()).toBe(before + 5);
    const refused = await heartbeat(h, { token: forged(), address: '203.0.113.7' });
    expect(refused.status).toBe(429);
    expect(refused.json.error.code).toBe('quota.rate_limited');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(nonces()).toBe(before + 5);
    // The address is refused even with a genuine token until the window ends; other addresses are not.
    expect((await heartbeat(h, { address: '203.0.113.7' })).status).toBe(429);
    expect((await heartbeat(h, { address: '203.0.113.8' })).status).toBe(200);
    h.clock.advance(MINUTE);
    expect((await heartbeat(h, { address: '203.0.113.7' })).status).toBe(200);
  });

  it('a successful request spends nothing of the failure budget', async () => {
    h.clock.advance(MINUTE);
    for (let i = 0; i < 8; i++) expect((await heartbeat(h, { address: '203.0.113.9' })).status).toBe(200);
  });

  it('the counters hold no connector id and no client address in clear (a count flushed after an erasure names nothing of it)', async () => {
    await h.t.services.rateLimits.flush();
    const buckets = (
      h.t.services.controlDb.prepare('SELECT bucket FROM rate_limits').all() as Array<{ bucket: string }>
    ).map((r) => r.bucket);
    expect(buckets.length).toBeGreaterThan(0);
    for (const secret of [h.site.connectorId, '203.0.113.7', '203.0.113.9'])
      expect(buckets.filter((b) => b.includes(secret))).toEqual([]);
  });
});

describe('management routes: per principal; public routes: per client address', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness({ rateLimitPerMinute: 3, waitlistRateLimitPerMinute: 2 });
  }, 60_000);
  afterAll(async () => h?.t.close());

  const takedown = (key: string | undefined, address = '127.0.0.1') =>
    injectJson(h.t.app, {
      method: 'DELETE',
      url: `/v1/websites/${h.site.websiteId}/node`,
      headers: key ? { authorization: `Bearer ${key}` } : {},
      remoteAddress: address,
    });

  it('an API key makes 3 requests a minute (403s count too), the 4th is 429 with the headers; another key of the same organization has its own budget', async () => {
    const answers = [
      await takedown(h.site.apiKey),
      await takedown(h.site.apiKey),
      await takedown(h.site.apiKey),
      await takedown(h.site.apiKey),
    ];
    expect(statuses(answers)).toEqual([403, 403, 403, 429]);
    expect(answers[0]!.headers).toMatchObject({ 'ratelimit-limit': '3', 'ratelimit-remaining': '2' });
    expect(answers[3]!.headers).toMatchObject({
      'retry-after': '45',
      'ratelimit-remaining': '0',
      'ratelimit-reset': '45',
    });
    const admin = createApiKey(
      h.t.services.controlDb,
      { organizationId: h.site.organizationId, role: 'organization_admin' },
      h.clock.now(),
    ).key;
    expect((await takedown(admin)).status).toBe(200);
  });

  it("anonymous callers and refused credentials spend their client address's budget", async () => {
    const answers = [
      await takedown(undefined, '198.51.100.1'),
      await takedown('nk_live_forged', '198.51.100.1'),
      await takedown(undefined, '198.51.100.1'),
      await takedown('nk_live_forged', '198.51.100.1'),
    ];
    expect(statuses(answers)).toEqual([401, 401, 401, 429]);
    expect((await takedown(undefined, '198.51.100.2')).status).toBe(401);
  });

  it('node files share the address budget; probes are never limited', async () => {
    const files = [];
    for (let i = 0; i < 4; i++)
      files.push(
        await injectJson(h.t.app, {
          method: 'GET',
          url: '/nodes/unknown.example/manifest.json',
          remoteAddress: '198.51.100.3',
        }),
      );
    expect(statuses(files)).toEqual([404, 404, 404, 429]);
    for (let i = 0; i < 5; i++)
      expect(
        (await injectJson(h.t.app, { method: 'GET', url: '/healthz', remoteAddress: '198.51.100.3' })).status,
      ).toBe(200);
  });

  it('the waitlist keeps its own, stricter limit per address', async () => {
    const join = (email: string) =>
      injectJson(h.t.app, {
        method: 'POST',
        url: '/v1/waitlist',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ email, consent: true }),
        remoteAddress: '198.51.100.4',
      });
    const answers = [await join('a@example.com'), await join('b@example.com'), await join('c@example.com')];
    expect(statuses(answers)).toEqual([202, 202, 429]);
    expect(answers[2]!.headers).toMatchObject({ 'ratelimit-limit': '2', 'ratelimit-policy': '2;w=60' });
  });
});
