import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signRequest } from '../../../src/platform/contract/signing.js';
import { createConnector } from '../../../src/control/connectors/connectors.js';
import { readMasterKey } from '../../../src/platform/storage/data-dir.js';
import { createApiKey } from '../../../src/control/records/api-keys.js';
import { createUser } from '../../../src/control/records/users.js';
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

describe('ingest: failed authentication per client address and per claimed connector (issue 36 F4)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness({ ingestAuthFailuresPerMinute: 5 });
  }, 60_000);
  afterAll(async () => h?.t.close());

  const forged = () => `con_${randomBytes(8).toString('hex')}.${randomBytes(24).toString('base64url')}`;
  const wrongSecret = () => `${h.site.connectorId}.${randomBytes(24).toString('base64url')}`;
  const nonces = () => (h.t.services.controlDb.prepare('SELECT COUNT(*) AS n FROM nonces').get() as { n: number }).n;

  it('forged tokens write no nonce; past 5 failures the address gets 429, yet a valid connector on that address still passes', async () => {
    const before = nonces();
    for (let i = 0; i < 5; i++)
      expect((await heartbeat(h, { token: forged(), address: '203.0.113.7' })).json.error.code).toBe(
        'auth.token_revoked',
      );
    expect(nonces()).toBe(before);
    // 65 forged requests (the adversarial run): the failing ones are refused, nobody else is.
    const answers: InjectAnswer[] = [];
    for (let i = 0; i < 60; i++) answers.push(await heartbeat(h, { token: forged(), address: '203.0.113.7' }));
    expect(new Set(statuses(answers))).toEqual(new Set([429]));
    expect(answers[0]!.json.error.code).toBe('quota.rate_limited');
    expect(Number(answers[0]!.headers['retry-after'])).toBeGreaterThan(0);
    expect(nonces()).toBe(before);
    expect((await heartbeat(h, { address: '203.0.113.7' })).status).toBe(200);
    expect((await heartbeat(h, { address: '203.0.113.8' })).status).toBe(200);
  });

  it('wrong secrets for a real connector from many addresses are limited per claimed connector; its real token still passes', async () => {
    h.clock.advance(MINUTE);
    const answers: InjectAnswer[] = [];
    for (let i = 0; i < 8; i++) answers.push(await heartbeat(h, { token: wrongSecret(), address: `198.51.100.${i}` }));
    expect(statuses(answers)).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
    expect(answers[0]!.json.error.code).toBe('auth.invalid_signature');
    expect((await heartbeat(h, { address: '198.51.100.1' })).status).toBe(200);
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

describe('trustProxy: the client address behind a reverse proxy (issue 36 F4)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness({ nodeRateLimitPerMinute: 2, trustProxy: ['10.0.0.0/8'] });
  }, 60_000);
  afterAll(async () => h?.t.close());

  const viaProxy = (client: string, proxy = '10.0.0.2') =>
    injectJson(h.t.app, {
      method: 'GET',
      url: '/nodes/unknown.example/manifest.json',
      headers: { 'x-forwarded-for': client },
      remoteAddress: proxy,
    });

  it("a trusted proxy's X-Forwarded-For names the client: each client behind it has its own budget", async () => {
    expect(
      statuses([await viaProxy('192.0.2.10'), await viaProxy('192.0.2.10'), await viaProxy('192.0.2.10')]),
    ).toEqual([404, 404, 429]);
    expect((await viaProxy('192.0.2.11')).status).toBe(404);
  });

  it('an address not in the list is not believed: its X-Forwarded-For is ignored', async () => {
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await viaProxy(`192.0.2.${20 + i}`, '203.0.113.50'));
    expect(statuses(answers)).toEqual([404, 404, 429]);
  });
});

describe('login: per account low, per address high (issue 36 F4)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness({ authRateLimitPerMinute: 3, authAddressRateLimitPerMinute: 20 });
  }, 60_000);
  afterAll(async () => h?.t.close());

  const login = (email: string, password: string, address = '203.0.113.60') =>
    injectJson(h.t.app, {
      method: 'POST',
      url: '/v1/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ email, password }),
      remoteAddress: address,
    });

  it('failed logins for one account from an address lock that account, not every account on the address', async () => {
    await createUser(
      h.t.services.controlDb,
      { email: 'b@example.com', password: 'correct-horse-battery' },
      h.clock.now(),
    );
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await login('a@example.com', 'wrong-password-123'));
    expect(statuses(answers)).toEqual([401, 401, 401, 429, 429]);
    expect((await login('b@example.com', 'correct-horse-battery')).status).toBe(200);
  });

  it('an address that passes the per-address limit is refused for every account', async () => {
    h.clock.advance(MINUTE);
    const answers = [];
    for (let i = 0; i < 21; i++)
      answers.push(await login(`user${i}@example.com`, 'wrong-password-123', '203.0.113.61'));
    expect(answers[19]!.status).toBe(401);
    expect(answers[20]!.status).toBe(429);
  });
});

describe('management routes: per principal; public routes: per client address', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness({ rateLimitPerMinute: 3, nodeRateLimitPerMinute: 5, waitlistRateLimitPerMinute: 2 });
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

  it('node files have their own budget per address, apart from the API; probes are never limited', async () => {
    const address = '198.51.100.3';
    const api = [];
    for (let i = 0; i < 4; i++) api.push(await takedown(undefined, address));
    expect(statuses(api)).toEqual([401, 401, 401, 429]);
    const files = [];
    for (let i = 0; i < 6; i++)
      files.push(
        await injectJson(h.t.app, {
          method: 'GET',
          url: '/nodes/unknown.example/manifest.json',
          remoteAddress: address,
        }),
      );
    expect(statuses(files)).toEqual([404, 404, 404, 404, 404, 429]);
    expect(files[0]!.headers).toMatchObject({ 'ratelimit-limit': '5' });
    expect((await takedown(undefined, address)).status).toBe(429);
    for (let i = 0; i < 5; i++)
      expect((await injectJson(h.t.app, { method: 'GET', url: '/healthz', remoteAddress: address })).status).toBe(200);
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
