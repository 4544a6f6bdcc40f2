import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobWorker } from '../../../src/platform/job-runtime/job-worker.js';
import { monthOf, readUsage } from '../../../src/platform/storage/usage-counters.js';
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
import { createWorker } from '../../control/webhooks/support.js';
import { DIMENSIONS, startEmbeddingsServer, type EmbeddingsServer } from './embeddings-server.js';

// In process: a business-plan website, its chunks embedded by the embeddings.compute job through a
// local OpenAI-compatible server, searched in the three modes.
let t: TestApp;
let clock: FakeClock;
let site: SeededWebsite;
let provider: EmbeddingsServer;
let worker: JobWorker;
const TEN_MINUTES = 600_000;

const PAGES = {
  flights: 'Book cheap flights to Lisbon with our travel desk.',
  grinder: 'Clean the burrs of your coffee grinder every month.',
  hotel: 'Hotel rooms near the river in Porto, breakfast included.',
};

beforeAll(async () => {
  provider = await startEmbeddingsServer();
  clock = fakeClock();
  t = await buildTestApp({
    clock,
    settings: {
      embeddingsUrl: provider.url,
      embeddingsModel: 'hash-bow',
      embeddingsDimensions: DIMENSIONS,
      embeddingsBatchSize: 2,
    },
  });
  site = await seedWebsite(t.services, 'example.com');
  t.services.controlDb.prepare("UPDATE organizations SET plan = 'business' WHERE id = ?").run(site.organizationId);
  worker = createWorker(t.services);
}, 60_000);
afterAll(async () => {
  await worker?.stop();
  await t?.close();
  await provider?.close();
});

const ingest = async (items: Record<string, unknown>[]) => {
  const res = await injectSigned(t.app, '/v1/ingest/batch', {
    token: site.connectorToken,
    websiteId: site.websiteId,
    nowMs: clock.now(),
    body: { website_id: site.websiteId, items },
  });
  expect(res.status, res.body).toBe(200);
};
const search = (query: string, websiteId = site.websiteId, key = site.apiKey) =>
  injectJson(t.app, {
    method: 'GET',
    url: `/v1/websites/${websiteId}/knowledge/search?${query}`,
    headers: { authorization: `Bearer ${key}` },
  });
const urls = (res: { json: any }) =>
  (res.json.data.items as Array<{ source_url?: string }>).map((hit) => hit.source_url);
const graph = () => t.services.graphs.get(site.websiteId);
const counts = () =>
  graph()
    .prepare(
      `SELECT (SELECT COUNT(*) FROM chunks) AS chunks, (SELECT COUNT(*) FROM chunk_vectors v JOIN chunks c ON c.id = v.chunk_id) AS vectors, (SELECT COUNT(*) FROM chunk_vectors) AS stored`,
    )
    .get() as { chunks: number; vectors: number; stored: number };
const metric = async (name: string) => {
  const text = await t.services.metrics.registry.metrics();
  return text
    .split('\n')
    .filter((line) => line.startsWith(name))
    .join('\n');
};

describe('embeddings and hybrid search', () => {
  it('embeds chunks after ingest in its own job, counting usage', async () => {
    await ingest(Object.entries(PAGES).map(([id, text]) => pageItem(id, text)));
    await worker.drain();
    const job = t.services.jobs.list({ kind: 'embeddings.compute' })[0];
    expect(job?.state).toBe('succeeded');
    const { chunks, vectors } = counts();
    expect(chunks).toBeGreaterThanOrEqual(3);
    expect(vectors).toBe(chunks);
    expect(readUsage(t.services.controlDb, site.organizationId, monthOf(clock.now())).embedded_chunks).toBe(chunks);
    expect(await metric('nodectl_embedded_chunks_total')).toContain(`nodectl_embedded_chunks_total ${chunks}`);
  });

  it('finds by meaning what keyword search misses: vector and hybrid modes', async () => {
    const keyword = await search('q=inexpensive%20airfare&mode=keyword');
    expect(keyword.status, keyword.body).toBe(200);
    expect(keyword.json.data.items).toEqual([]);

    const vector = await search('q=inexpensive%20airfare&mode=vector&limit=1');
    expect(vector.status, vector.body).toBe(200);
    expect(urls(vector)).toEqual(['https://example.com/flights']);
    expect(vector.json.data.items[0]).toMatchObject({
      kind: 'chunk',
      snippet: expect.stringContaining('cheap flights'),
    });
    expect(vector.json.data.items[0].score).toBeGreaterThan(0.3);

    const hybrid = await search('q=inexpensive%20airfare');
    expect(hybrid.headers['nodectl-search-mode']).toBe('hybrid');
    expect(urls(hybrid)[0]).toBe('https://example.com/flights');

    // Words still count in hybrid mode: a keyword hit leads.
    const grinder = await search('q=grinder&kind=chunk');
    expect(urls(grinder)[0]).toBe('https://example.com/grinder');
    // Vector hits are chunks only.
    expect((await search('q=inexpensive%20airfare&mode=vector&kind=entity')).json.data.items).toEqual([]);
  });

  it('pages through hybrid hits without repeats', async () => {
    const all = (await search('q=cheap%20flights%20hotel&limit=100')).json.data.items.map((h: { id: string }) => h.id);
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const res: any = await search(
        `q=cheap%20flights%20hotel&limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(res.status, res.body).toBe(200);
      paged.push(...res.json.data.items.map((h: { id: string }) => h.id));
      cursor = res.json.data.next_cursor;
    } while (cursor && paged.length < 50);
    expect(paged).toEqual(all);
    expect(all.length).toBeGreaterThan(1);
  });

  it('embeds again only chunks whose text changed', async () => {
    const before = provider.inputs.length;
    await ingest([pageItem('flights', PAGES.flights), pageItem('hotel', 'Hotel rooms by the sea in Porto.')]);
    await worker.drain();
    expect(provider.inputs.slice(before)).toEqual(['Hotel rooms by the sea in Porto.']);
    expect(counts().vectors).toBe(counts().chunks);
  });

  it('a provider outage delays vectors and loses nothing; they appear when it is back', async () => {
    const errorsBefore = await metric('nodectl_embedding_requests_total{outcome="error"}');
    provider.mode = 'error';
    await ingest([pageItem('deals', 'Affordable airfare deals every week.')]);
    await worker.drain();
    // Ingest went on: the page is searchable by its words at once.
    expect(urls(await search('q=deals&mode=keyword'))).toContain('https://example.com/deals');
    const job = t.services.jobs.list({ kind: 'embeddings.compute' }).find((j) => j.state === 'queued')!;
    expect(job.lastError).toMatch(/answered 500/);
    expect(counts().vectors).toBe(counts().chunks - 1);
    expect(await metric('nodectl_embedding_requests_total{outcome="error"}')).not.toBe(errorsBefore);

    provider.mode = 'closed';
    clock.advance(TEN_MINUTES);
    await worker.drain();
    expect(t.services.jobs.get(job.id)?.lastError).toMatch(/unreachable/);
    expect(counts().vectors).toBe(counts().chunks - 1);

    provider.mode = 'up';
    clock.advance(TEN_MINUTES);
    await worker.drain();
    expect(t.services.jobs.get(job.id)?.state).toBe('succeeded');
    expect(counts().vectors).toBe(counts().chunks);
    expect(urls(await search('q=budget%20plane&mode=vector&limit=2'))).toContain('https://example.com/deals');
  });

  it('deletes and GDPR erasures take the vectors of their chunks with them', async () => {
    const res = await injectSigned(t.app, '/v1/ingest/delete', {
      token: site.connectorToken,
      websiteId: site.websiteId,
      nowMs: clock.now(),
      body: { website_id: site.websiteId, ids: ['deals'] },
    });
    expect(res.status, res.body).toBe(200);
    await worker.drain();
    const { chunks, vectors, stored } = counts();
    expect(stored).toBe(chunks);
    expect(vectors).toBe(chunks);
    expect(urls(await search('q=budget%20plane&mode=vector&limit=5'))).not.toContain('https://example.com/deals');

    // A GDPR erasure too, with its compaction of the graph file.
    const hotelChunks = graph().prepare("SELECT id FROM chunks WHERE item_key = 'page:hotel'").pluck().all();
    expect(hotelChunks.length).toBeGreaterThan(0);
    const erased = await injectSigned(t.app, '/v1/ingest/delete', {
      token: site.connectorToken,
      websiteId: site.websiteId,
      nowMs: clock.now(),
      body: { website_id: site.websiteId, ids: ['hotel'], reason: 'gdpr_erasure' },
    });
    expect(erased.status, erased.body).toBe(200);
    await worker.drain();
    const left = graph()
      .prepare('SELECT COUNT(*) FROM chunk_vectors WHERE chunk_id IN (SELECT value FROM json_each(?))')
      .pluck()
      .get(JSON.stringify(hotelChunks));
    expect(left).toBe(0);
    expect(counts().stored).toBe(counts().chunks);
  });

  it('answers 409 search.vectors_unavailable for mode=vector where the plan has no cap.embeddings', async () => {
    t.services.controlDb.prepare("UPDATE organizations SET plan = 'pro' WHERE id = ?").run(site.organizationId);
    try {
      const res = await search('q=inexpensive%20airfare&mode=vector');
      expect(res.status).toBe(409);
      expect(res.json.error.code).toBe('search.vectors_unavailable');
      const fallback = await search('q=cheap');
      expect(fallback.headers['nodectl-search-mode']).toBe('keyword');
    } finally {
      t.services.controlDb.prepare("UPDATE organizations SET plan = 'business' WHERE id = ?").run(site.organizationId);
    }
  });

  it('answers 503 search.embeddings_failed when the query cannot be embedded in a named mode; the default falls back to keyword', async () => {
    provider.mode = 'error';
    try {
      const res = await search('q=something%20new&mode=hybrid');
      expect(res.status).toBe(503);
      expect(res.json.error.code).toBe('search.embeddings_failed');
      const fallback = await search('q=grinder%20again');
      expect(fallback.status).toBe(200);
      expect(fallback.headers['nodectl-search-mode']).toBe('keyword');
    } finally {
      provider.mode = 'up';
    }
  });
});

describe('embeddings off (the default)', () => {
  let off: TestApp;
  let offSite: SeededWebsite;
  beforeAll(async () => {
    off = await buildTestApp({ clock: fakeClock() });
    offSite = await seedWebsite(off.services, 'example.com');
    off.services.controlDb
      .prepare("UPDATE organizations SET plan = 'business' WHERE id = ?")
      .run(offSite.organizationId);
  }, 60_000);
  afterAll(async () => off?.close());

  it('ingests without an embeddings job and searches by keyword as before', async () => {
    const res = await injectSigned(off.app, '/v1/ingest/batch', {
      token: offSite.connectorToken,
      websiteId: offSite.websiteId,
      nowMs: off.services.now(),
      body: { website_id: offSite.websiteId, items: [pageItem('flights', PAGES.flights)] },
    });
    expect(res.status).toBe(200);
    const offWorker = createWorker(off.services);
    await offWorker.drain();
    await offWorker.stop();
    expect(off.services.jobs.list({ kind: 'embeddings.compute' })).toEqual([]);
    const get = (q: string) =>
      injectJson(off.app, {
        method: 'GET',
        url: `/v1/websites/${offSite.websiteId}/knowledge/search?${q}`,
        headers: { authorization: `Bearer ${offSite.apiKey}` },
      });
    const hits = await get('q=cheap%20flights');
    expect(hits.headers['nodectl-search-mode']).toBe('keyword');
    expect(hits.json.data.items.length).toBeGreaterThan(0);
    expect(new Set(urls(hits))).toEqual(new Set(['https://example.com/flights']));
    expect((await get('q=cheap&mode=hybrid')).headers['nodectl-search-mode']).toBe('keyword');
    const vector = await get('q=cheap&mode=vector');
    expect(vector.status).toBe(409);
    expect(vector.json.error.code).toBe('search.vectors_unavailable');
  });
});
