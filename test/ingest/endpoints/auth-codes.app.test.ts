import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signRequest } from '../../../src/platform/contract/signing.js';
import {
  buildTestApp,
  fakeClock,
  injectJson,
  injectSigned,
  seedWebsite,
  type FakeClock,
  type SeededWebsite,
  type TestApp,
} from '../../helpers/app.js';

/** The codes of a refused ingest authentication, as docs/errors.md and docs/ingest.md name them (issue 36 F12). */

let t: TestApp;
let clock: FakeClock;
let site: SeededWebsite;

beforeAll(async () => {
  clock = fakeClock();
  t = await buildTestApp({ clock });
  site = await seedWebsite(t.services);
}, 60_000);
afterAll(async () => t?.close());

const heartbeat = { connector_state: 'idle' };

describe('ingest authentication codes', () => {
  it('a wrong secret for a real connector is 401 auth.invalid_signature, not auth.token_revoked', async () => {
    const token = `${site.connectorId}.${randomBytes(24).toString('base64url')}`;
    const answer = await injectSigned(t.app, '/v1/ingest/heartbeat', {
      token,
      websiteId: site.websiteId,
      body: { website_id: site.websiteId, ...heartbeat },
      nowMs: clock.now(),
    });
    expect(answer.status).toBe(401);
    expect(answer.json.error.code).toBe('auth.invalid_signature');
  });

  it('an unknown connector stays 401 auth.token_revoked', async () => {
    const token = `con_${randomBytes(8).toString('hex')}.${randomBytes(24).toString('base64url')}`;
    const answer = await injectSigned(t.app, '/v1/ingest/heartbeat', {
      token,
      websiteId: site.websiteId,
      body: { website_id: site.websiteId, ...heartbeat },
      nowMs: clock.now(),
    });
    expect(answer.json.error.code).toBe('auth.token_revoked');
  });

  it('an X-Timestamp in milliseconds, correctly signed, is 401 auth.timestamp_skew naming the unit', async () => {
    const raw = JSON.stringify({ website_id: site.websiteId, ...heartbeat });
    const headers = signRequest({
      token: site.connectorToken,
      websiteId: site.websiteId,
      path: '/v1/ingest/heartbeat',
      body: raw,
      timestamp: clock.now(),
      nonce: randomUUID(),
    });
    const answer = await injectJson(t.app, {
      method: 'POST',
      url: '/v1/ingest/heartbeat',
      headers: { ...headers, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      payload: raw,
    });
    expect(answer.status).toBe(401);
    expect(answer.json.error.code).toBe('auth.timestamp_skew');
    expect(answer.json.error.message).toMatch(/milliseconds/);
  });

  it('the genuine token still passes', async () => {
    const answer = await injectSigned(t.app, '/v1/ingest/heartbeat', {
      token: site.connectorToken,
      websiteId: site.websiteId,
      body: { website_id: site.websiteId, ...heartbeat },
      nowMs: clock.now(),
    });
    expect(answer.status).toBe(200);
  });
});
