import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliverWebhookKind } from '../../../src/control/events/job-kinds.js';
import { contentIngestJob } from '../../../src/ingest/graph/content-ingest-job.js';
import { maintenanceExpireJob } from '../../../src/control/records/expire-job.js';
import { createApiKey } from '../../../src/control/records/api-keys.js';
import {
  buildTestApp,
  fakeClock,
  injectJson,
  seedWebsite,
  type SeededWebsite,
  type TestApp,
} from '../../helpers/app.js';

// GET /v1/websites/:id/jobs and .../jobs/:jobId in process, over jobs queued in the real control database.
const clock = fakeClock();
let t: TestApp;
let site: SeededWebsite;
let other: SeededWebsite;
let viewerKey: string;
const ids: Record<string, string> = {};

beforeAll(async () => {
  t = await buildTestApp({ clock });
  site = await seedWebsite(t.services, 'jobs.example');
  other = await seedWebsite(t.services, 'other.example');
  viewerKey = createApiKey(t.services.controlDb, { organizationId: site.organizationId, role: 'viewer' }).key;
  const queue = t.services.jobs;
  // One millisecond apart, so newest first is a known order.
  const enqueue = (name: string, make: () => { id: string }) => {
    clock.advance(1);
    ids[name] = make().id;
  };
  enqueue('ingest1', () => queue.enqueue(contentIngestJob, { website_id: site.websiteId, raw_content_ids: ['raw_1'] }));
  enqueue('foreign', () =>
    queue.enqueue(contentIngestJob, { website_id: other.websiteId, raw_content_ids: ['raw_2'] }),
  );
  enqueue('maintenance', () => queue.enqueue(maintenanceExpireJob, {}));
  enqueue('delivery', () =>
    queue.enqueue(deliverWebhookKind, { delivery_id: 'dlv_1', website_id: site.websiteId, step: 0 }),
  );
  enqueue('ingest2', () => queue.enqueue(contentIngestJob, { website_id: site.websiteId, raw_content_ids: ['raw_3'] }));
  // ingest1 ran and failed for good.
  const claimed = queue.claim('test-worker', ['content.ingest'])!;
  expect(claimed.id).toBe(ids.ingest1);
  queue.deadLetter(claimed.id, 'test-worker', 'the graph file is locked');
}, 60_000);
afterAll(async () => t?.close());

const get = (url: string, key = viewerKey) => injectJson(t.app, { method: 'GET', url, headers: { 'x-api-key': key } });
const listed = (res: { json: any }) => res.json.data.items.map((j: { id: string }) => j.id);

describe('GET /v1/websites/:id/jobs', () => {
  it("lists the website's own jobs newest first, without jobs of other websites or of none", async () => {
    const res = await get(`/v1/websites/${site.websiteId}/jobs`);
    expect(res.status, res.body).toBe(200);
    expect(listed(res)).toEqual([ids.ingest2, ids.delivery, ids.ingest1]);
    expect(res.json.data.next_cursor).toBeNull();
    expect(res.json.data.items[2]).toEqual({
      id: ids.ingest1,
      kind: 'content.ingest',
      state: 'dead',
      attempts: 1,
      maxAttempts: 5,
      runAt: expect.any(String),
      lastError: 'the graph file is locked',
      itemErrorCount: 0,
      createdAt: new Date(clock.now() - 4).toISOString(),
      updatedAt: new Date(clock.now()).toISOString(),
    });
    expect(res.json.data.items[2]).not.toHaveProperty('payload');
  });

  it('filters by state and kind, and pages with next_cursor', async () => {
    expect(listed(await get(`/v1/websites/${site.websiteId}/jobs?state=queued`))).toEqual([ids.ingest2, ids.delivery]);
    expect(listed(await get(`/v1/websites/${site.websiteId}/jobs?kind=content.ingest&state=dead`))).toEqual([
      ids.ingest1,
    ]);
    expect(listed(await get(`/v1/websites/${site.websiteId}/jobs?kind=webhook.deliver`))).toEqual([ids.delivery]);
    const first = await get(`/v1/websites/${site.websiteId}/jobs?limit=2`);
    expect(listed(first)).toEqual([ids.ingest2, ids.delivery]);
    const second = await get(`/v1/websites/${site.websiteId}/jobs?limit=2&cursor=${first.json.data.next_cursor}`);
    expect(listed(second)).toEqual([ids.ingest1]);
    expect(second.json.data.next_cursor).toBeNull();
  });

  it('refuses an unknown state, an empty kind and a cursor it did not give out (422)', async () => {
    const state = await get(`/v1/websites/${site.websiteId}/jobs?state=failed`);
    expect(state.status).toBe(422);
    expect(state.json.error.details.fields).toEqual([
      { path: 'state', message: 'must be one of queued, running, succeeded, dead' },
    ]);
    expect((await get(`/v1/websites/${site.websiteId}/jobs?kind=`)).json.error.details.fields).toEqual([
      { path: 'kind', message: 'must not be empty' },
    ]);
    // A cursor of another list (it names no job's place): base64url of "nope".
    expect((await get(`/v1/websites/${site.websiteId}/jobs?cursor=c1.bm9wZQ`)).json.error.details.fields).toEqual([
      { path: 'cursor', message: 'not a cursor of this list' },
    ]);
  });

  it("hides another organization's website: 404 website.not_found", async () => {
    const res = await get(`/v1/websites/${other.websiteId}/jobs`);
    expect(`${res.status} ${res.json.error.code}`).toBe('404 website.not_found');
  });
});

describe('GET /v1/websites/:id/jobs/:jobId', () => {
  it('reads one job of the website', async () => {
    const res = await get(`/v1/websites/${site.websiteId}/jobs/${ids.delivery}`);
    expect(res.status, res.body).toBe(200);
    expect(res.json.data).toMatchObject({
      id: ids.delivery,
      kind: 'webhook.deliver',
      state: 'queued',
      attempts: 0,
      lastError: null,
    });
  });

  it('answers 404 job.not_found for an unknown job, a job of another website and a job of no website', async () => {
    for (const jobId of ['job_unknown', ids.foreign, ids.maintenance]) {
      const res = await get(`/v1/websites/${site.websiteId}/jobs/${jobId}`);
      expect(`${res.status} ${res.json.error.code}`, jobId).toBe('404 job.not_found');
    }
  });
});
