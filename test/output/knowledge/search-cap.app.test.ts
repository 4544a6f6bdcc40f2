import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, injectJson, seedWebsite, type SeededWebsite, type TestApp } from '../../helpers/app.js';

/**
 * Knowledge searches wait in one queue, a few places per caller (issue 36 F13: 200 concurrent
 * searches held /healthz for over a second). Requests sent together reach the queue in the same
 * turn of the event loop, before the first search runs.
 */

let t: TestApp;
let site: SeededWebsite;
beforeAll(async () => {
  t = await buildTestApp({ settings: { searchQueuePerCaller: 2 } });
  site = await seedWebsite(t.services);
}, 60_000);
afterAll(async () => t?.close());

const search = (key = site.apiKey) =>
  injectJson(t.app, {
    method: 'GET',
    url: `/v1/websites/${site.websiteId}/knowledge/search?q=grinder`,
    headers: { authorization: `Bearer ${key}` },
  });

describe('the search queue per caller', () => {
  it('of 4 searches one caller sends at once, 2 are answered and 2 are 429 quota.rate_limited with Retry-After', async () => {
    const answers = await Promise.all([search(), search(), search(), search()]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 429, 429]);
    expect(answers[2]!.json.error.code).toBe('quota.rate_limited');
    expect(answers[2]!.headers['retry-after']).toBe('1');
  });

  it('once they have answered, the caller searches again', async () => {
    expect((await search()).status).toBe(200);
  });
});
