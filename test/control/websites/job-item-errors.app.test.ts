import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOBS } from '../../../src/daemon/job-definitions.js';
import { JobWorker } from '../../../src/platform/job-runtime/job-worker.js';
import { JobQueue } from '../../../src/platform/jobs/queue.js';
import {
  buildTestApp,
  fakeClock,
  injectJson,
  injectSigned,
  seedWebsite,
  type SeededWebsite,
  type TestApp,
} from '../../helpers/app.js';
import { pageItem } from '../../ingest/endpoints/support.js';
import { moveFromInbox } from '../../../src/ingest/graph/inbox.js';

/**
 * The items a content.ingest job refuses, read back from GET /v1/websites/:id/jobs/:jobId
 * (docs/ingest.md "Item errors"): pushed through the signed ingest API, run by the real job.
 */
const clock = fakeClock();
let t: TestApp;
let site: SeededWebsite;
let other: SeededWebsite;
let jobId: string;

/** Two item errors listed per job here, so the bound shows without a hundred bad items. */
const LISTED = 2;

beforeAll(async () => {
  t = await buildTestApp({ clock });
  site = await seedWebsite(t.services, 'example.com');
  other = await seedWebsite(t.services, 'other.example');
  const items = ['good-1', 'no-json', 'bad-fields', 'no-body', 'good-2'].map((id) => pageItem(id));
  const push = await injectSigned(t.app, '/v1/ingest/batch', {
    token: site.connectorToken,
    websiteId: site.websiteId,
    body: { website_id: site.websiteId, items },
    nowMs: clock.now(),
  });
  expect(push.status, push.body).toBe(200);
  jobId = push.json.data.results[0].job_id;
  expect(String(jobId), push.body).toMatch(/^job_/);
  // Push validates every item, so a body the job refuses is one stored before the schema changed
  // (an upgrade) or damaged on disk: made so here, in raw_items, before the job runs.
  const graph = t.services.graphs.get(site.websiteId);
  await moveFromInbox(graph, t.services.graphs.inbox(site.websiteId), 'all');
  const setBody = graph.prepare('UPDATE raw_items SET body = ? WHERE item_id = ?');
  setBody.run('{"type":"page"', 'no-json');
  setBody.run(JSON.stringify({ type: 'page', id: 'bad-fields', url: 'https://example.com/bad-fields' }), 'bad-fields');
  setBody.run(null, 'no-body');
  const queue = new JobQueue(t.services.controlDb, { now: clock.now, itemErrorsListed: LISTED });
  const ran = await new JobWorker(
    queue,
    JOBS,
    { ...t.services, jobs: queue },
    {
      lanes: { ingest: 1, publish: 1, delivery: 1, maintenance: 1 },
      pollMs: 1000,
    },
  ).drain(['content.ingest']);
  expect(ran).toBe(1);
}, 60_000);
afterAll(async () => t?.close());

const get = (url: string, key = site.apiKey) =>
  injectJson(t.app, { method: 'GET', url, headers: { authorization: `Bearer ${key}` } });

describe('item errors of a content.ingest job', () => {
  it('GET .../jobs/:jobId lists the refused items with ids, urls and codes, bounded, and counts them all', async () => {
    const res = await get(`/v1/websites/${site.websiteId}/jobs/${jobId}`);
    expect(res.status, res.body).toBe(200);
    expect(res.json.data).toMatchObject({ id: jobId, kind: 'content.ingest', state: 'succeeded', itemErrorCount: 3 });
    expect(res.json.data.itemErrors).toEqual([
      {
        itemId: 'no-json',
        itemType: 'page',
        url: 'https://example.com/no-json',
        code: 'item.body_invalid',
        message: expect.stringMatching(/^stored body is not JSON .*; push the item again$/),
      },
      {
        itemId: 'bad-fields',
        itemType: 'page',
        url: 'https://example.com/bad-fields',
        code: 'item.body_invalid',
        message: expect.stringMatching(
          /not a valid IngestItem: checksum: .*push the item again with these fields fixed/,
        ),
      },
    ]);
    // The good items went in all the same.
    const states = t.services.graphs
      .get(site.websiteId)
      .prepare('SELECT item_id, state FROM raw_items ORDER BY item_id')
      .all();
    expect(states).toEqual([
      { item_id: 'bad-fields', state: 'failed' },
      { item_id: 'good-1', state: 'processed' },
      { item_id: 'good-2', state: 'processed' },
      { item_id: 'no-body', state: 'failed' },
      { item_id: 'no-json', state: 'failed' },
    ]);
  });

  it('the jobs list carries only the count', async () => {
    const res = await get(`/v1/websites/${site.websiteId}/jobs?kind=content.ingest`);
    expect(res.status, res.body).toBe(200);
    const [listed] = res.json.data.items;
    expect(listed).toMatchObject({ id: jobId, itemErrorCount: 3 });
    expect(listed).not.toHaveProperty('itemErrors');
  });

  it('a job that refused nothing answers an empty list and a zero count', async () => {
    const push = await injectSigned(t.app, '/v1/ingest/batch', {
      token: site.connectorToken,
      websiteId: site.websiteId,
      body: { website_id: site.websiteId, items: [pageItem('good-3')] },
      nowMs: clock.now(),
    });
    const res = await get(`/v1/websites/${site.websiteId}/jobs/${push.json.data.results[0].job_id}`);
    expect(res.json.data).toMatchObject({ state: 'queued', itemErrorCount: 0, itemErrors: [] });
  });

  it('keeps counting past the listed ones across batches and attempts (addItemErrors)', () => {
    const queue = new JobQueue(t.services.controlDb, { now: clock.now, itemErrorsListed: LISTED });
    const error = (itemId: string) => ({
      itemId,
      itemType: 'page',
      url: null,
      code: 'item.merge_failed',
      message: 'x',
    });
    queue.addItemErrors(jobId, [error('a'), error('b')]);
    queue.addItemErrors(jobId, []);
    expect(queue.get(jobId)!.itemErrors).toMatchObject({
      count: 5,
      listed: [{ itemId: 'no-json' }, { itemId: 'bad-fields' }],
    });
    const roomy = new JobQueue(t.services.controlDb, { now: clock.now, itemErrorsListed: 3 });
    roomy.addItemErrors(jobId, [error('c'), error('d')]);
    expect(roomy.get(jobId)!.itemErrors!.count).toBe(7);
    expect(roomy.get(jobId)!.itemErrors!.listed.map((e) => e.itemId)).toEqual(['no-json', 'bad-fields', 'c']);
  });

  it('no other organization reads the job: 404 through either website', async () => {
    const foreignKey = await get(`/v1/websites/${site.websiteId}/jobs/${jobId}`, other.apiKey);
    expect(`${foreignKey.status} ${foreignKey.json.error.code}`).toBe('404 website.not_found');
    const foreignSite = await get(`/v1/websites/${other.websiteId}/jobs/${jobId}`, other.apiKey);
    expect(`${foreignSite.status} ${foreignSite.json.error.code}`).toBe('404 job.not_found');
    expect(foreignSite.body).not.toContain('no-json');
  });
});
