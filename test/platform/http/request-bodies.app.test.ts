import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
import { pageItem } from '../../ingest/endpoints/support.js';

/** What a body may be (issue 36 F14): UTF-8 JSON only, and no NUL in the ids a client gives. */

let t: TestApp;
let clock: FakeClock;
let site: SeededWebsite;

beforeAll(async () => {
  clock = fakeClock();
  t = await buildTestApp({ clock });
  site = await seedWebsite(t.services);
}, 60_000);
afterAll(async () => t?.close());

const waitlist = (contentType: string, email: string) =>
  injectJson(t.app, {
    method: 'POST',
    url: '/v1/waitlist',
    headers: { 'content-type': contentType },
    payload: JSON.stringify({ email, consent: true }),
  });

describe('a charset other than UTF-8 is 415', () => {
  it('a management or public route refuses charset=utf-16 with 415 request.unsupported_media_type', async () => {
    const answer = await waitlist('application/json; charset=utf-16', 'a@example.com');
    expect(answer.status).toBe(415);
    expect(answer.json.error.code).toBe('request.unsupported_media_type');
    expect(answer.json.error.message).toMatch(/UTF-8/);
  });

  it('utf-8 in any case, quoted or not, and no charset are accepted', async () => {
    expect((await waitlist('application/json; charset=UTF-8', 'b@example.com')).status).toBe(202);
    expect((await waitlist('application/json; charset="utf-8"', 'c@example.com')).status).toBe(202);
    expect((await waitlist('application/json', 'd@example.com')).status).toBe(202);
  });

  it('an ingest route refuses charset=latin1 with 415', async () => {
    const answer = await injectSigned(t.app, '/v1/ingest/heartbeat', {
      token: site.connectorToken,
      websiteId: site.websiteId,
      body: { website_id: site.websiteId, connector_state: 'idle' },
      nowMs: clock.now(),
      headers: { 'content-type': 'application/json; charset=latin1' },
    });
    expect(answer.status).toBe(415);
    expect(answer.json.error.code).toBe('request.unsupported_media_type');
  });
});

describe('NUL in a client id is refused with validation.failed', () => {
  it('an item id with \\u0000 is an item error, not accepted', async () => {
    const answer = await injectSigned(t.app, '/v1/ingest/batch', {
      token: site.connectorToken,
      websiteId: site.websiteId,
      body: { website_id: site.websiteId, items: [pageItem('page:1\u0000evil'), pageItem('page:2')] },
      nowMs: clock.now(),
    });
    expect(answer.status).toBe(200);
    expect(answer.json.data.results.map((r: { status: string }) => r.status)).toEqual(['error', 'accepted']);
    expect(answer.json.data.results[0].error.code).toBe('validation.failed');
    expect(answer.json.data.results[0].error.message).toMatch(/NUL/);
  });

  it('a delete id with \\u0000 is 422 validation.failed', async () => {
    const answer = await injectSigned(t.app, '/v1/ingest/delete', {
      token: site.connectorToken,
      websiteId: site.websiteId,
      body: { website_id: site.websiteId, ids: ['page:2\u0000'] },
      nowMs: clock.now(),
    });
    expect(answer.status).toBe(422);
    expect(answer.json.error.code).toBe('validation.failed');
  });
});

describe('NUL in a path or query value is refused with validation.failed', () => {
  it('a website id or a search query with %00 is 422, naming the field', async () => {
    const get = (url: string) =>
      injectJson(t.app, { method: 'GET', url, headers: { authorization: `Bearer ${site.apiKey}` } });
    const byPath = await get(`/v1/websites/${site.websiteId}%00x`);
    expect(byPath.status).toBe(422);
    expect(byPath.json.error.code).toBe('validation.failed');
    expect(byPath.json.error.details.fields[0].path).toBe('params.id');
    const byQuery = await get(`/v1/websites/${site.websiteId}/knowledge/search?q=a%00b`);
    expect(byQuery.status).toBe(422);
    expect(byQuery.json.error.details.fields[0].path).toBe('query.q');
  });
});
