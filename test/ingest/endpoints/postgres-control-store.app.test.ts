import { randomUUID } from 'node:crypto';
import { cpSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { signRequest } from '../../../src/platform/contract/signing.js';
import { buildTestApp, fakeClock, injectSigned, seedWebsite, type TestApp } from '../../helpers/app.js';
import { makeTempDir } from '../../helpers/paths.js';
import { createTestDatabase, postgresServerUrl } from '../../helpers/postgres.js';

/**
 * controlStore = postgres://... (issue 41): two daemons, each over its own data directory (a copy),
 * share their control tables and request state through one real PostgreSQL: a signed request's
 * nonce used through one is a replay through the other, and the per-connector rate limit counts
 * the requests of both.
 */
describe('two daemons sharing a PostgreSQL control store', () => {
  const cleanups: Array<() => unknown> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function twoDaemons(settings: Record<string, unknown> = {}) {
    const controlStore = await createTestDatabase();
    const clock = fakeClock();
    const a = await buildTestApp({ settings: { ...settings, controlStore }, clock });
    cleanups.push(() => a.close());
    const site = await seedWebsite(a.services);
    a.services.controlDb.pragma('wal_checkpoint(TRUNCATE)'); // the copy then holds every seeded row
    const copy = makeTempDir('nodectl-app-copy-');
    cleanups.push(() => copy.cleanup());
    cpSync(a.dataDir, copy.dir, { recursive: true });
    const b: TestApp = await buildTestApp({ settings: { ...settings, controlStore }, clock, dataDir: copy.dir });
    cleanups.push(() => b.close());
    return { a, b, site, clock, controlStore };
  }

  const heartbeat = (site: { websiteId: string }) => ({ website_id: site.websiteId, connector_state: 'idle' });

  it('refuses through one daemon a signed request whose nonce the other accepted, and keeps nonces in PostgreSQL only', async () => {
    const { a, b, site, clock, controlStore } = await twoDaemons();
    const path = '/v1/ingest/heartbeat';
    const body = JSON.stringify(heartbeat(site));
    const headers = {
      'content-type': 'application/json',
      'idempotency-key': randomUUID(),
      ...signRequest({
        token: site.connectorToken,
        websiteId: site.websiteId,
        path,
        body,
        timestamp: Math.floor(clock.now() / 1000),
        nonce: randomUUID(),
      }),
    };
    const first = await a.app.inject({ method: 'POST', url: path, headers, payload: body });
    expect(first.statusCode).toBe(200);
    // The same bytes replayed to the other daemon (a new Idempotency-Key: the nonce alone must refuse it).
    const replayed = await b.app.inject({
      method: 'POST',
      url: path,
      headers: { ...headers, 'idempotency-key': randomUUID() },
      payload: body,
    });
    expect(replayed.statusCode).toBe(401);
    expect(replayed.json().error.code).toBe('auth.nonce_replay');

    for (const app of [a, b]) expect(existsSync(join(app.dataDir, 'control.sqlite'))).toBe(false);
    const client = new pg.Client({ connectionString: controlStore });
    await client.connect();
    try {
      const { rows } = await client.query('SELECT scope FROM nonces');
      expect(rows).toEqual([{ scope: site.connectorId }]);
    } finally {
      await client.end();
    }
  });

  it('holds the per-connector rate limit across both: each counts what the other flushed', async () => {
    const { a, b, site, clock } = await twoDaemons({ ingestRateLimitPerMinute: 3 });
    const send = (t: TestApp) =>
      injectSigned(t.app, '/v1/ingest/heartbeat', {
        token: site.connectorToken,
        websiteId: site.websiteId,
        body: heartbeat(site),
        nowMs: clock.now(),
      });
    expect((await send(a)).status).toBe(200);
    expect((await send(a)).status).toBe(200);
    await a.services.rateLimits.flush();
    // b reads a's 2 from PostgreSQL: one more is the third of 3, the next is refused.
    expect((await send(b)).status).toBe(200);
    const refused = await send(b);
    expect(refused.status).toBe(429);
    expect(refused.json.error.code).toBe('quota.rate_limited');
    await b.services.rateLimits.flush();
    await a.services.rateLimits.flush(); // nothing to add: a learns b's counts
    expect((await send(a)).status).toBe(429);
  });

  it('fails closed when its PostgreSQL control store cannot be used: 503 service.unavailable', async () => {
    const url = new URL(await createTestDatabase());
    const clock = fakeClock();
    const t = await buildTestApp({ settings: { controlStore: url.toString() }, clock });
    cleanups.push(() => t.close());
    const site = await seedWebsite(t.services);
    // The database goes away under the running daemon: its connections end and cannot be made again.
    const admin = new pg.Client({ connectionString: await postgresServerUrl() });
    await admin.connect();
    await admin.query(`DROP DATABASE ${url.pathname.slice(1)} WITH (FORCE)`);
    await admin.end();
    const answer = await injectSigned(t.app, '/v1/ingest/heartbeat', {
      token: site.connectorToken,
      websiteId: site.websiteId,
      body: heartbeat(site),
      nowMs: clock.now(),
    });
    expect(answer.status).toBe(503);
    expect(answer.json.error.code).toBe('service.unavailable');
  });

  it('answers an idempotent retry through the other daemon from the record the first one stored', async () => {
    const { a, b, site, clock } = await twoDaemons();
    const key = randomUUID();
    const send = (t: TestApp) =>
      injectSigned(t.app, '/v1/ingest/heartbeat', {
        token: site.connectorToken,
        websiteId: site.websiteId,
        body: heartbeat(site),
        nowMs: clock.now(),
        idempotencyKey: key,
      });
    const first = await send(a);
    expect(first.status).toBe(200);
    const retried = await send(b);
    expect(retried.status).toBe(200);
    expect(retried.json.data).toEqual(first.json.data);
    expect(retried.headers['idempotent-replayed']).toBe('true');
  });
});
