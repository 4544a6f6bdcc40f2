import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFixture } from '../../../src/compiler/fixture.js';
import { loadWebsiteInfo } from '../../../src/control/records/load-website.js';
import { buildGraphFromItems } from '../../../src/ingest/graph/build-from-items.js';
import { createTargetFromSettings, runPublish } from '../../../src/output/publish/index.js';
import type { JobWorker } from '../../../src/platform/job-runtime/job-worker.js';
import { graphDbPath } from '../../../src/platform/storage/data-dir.js';
import { buildTestApp, injectSigned, seedWebsite, type SeededWebsite, type TestApp } from '../../helpers/app.js';
import { PROJECT_ROOT } from '../../helpers/paths.js';
import { createWorker } from '../../control/webhooks/support.js';
import { pageItem } from '../../ingest/endpoints/support.js';
import { DIMENSIONS, startEmbeddingsServer, type EmbeddingsServer } from '../knowledge/embeddings-server.js';

/**
 * search_website_knowledge in its three modes over HTTP MCP (official SDK client): a business
 * website's pages embedded by the embeddings job through a local OpenAI-compatible server, then
 * published, so its node carries embeddings.f32; the query is embedded by the same server.
 */
type Json = Record<string, any>;

let t: TestApp & { url?: string };
let provider: EmbeddingsServer;
let worker: JobWorker;
let site: SeededWebsite;
let bare: SeededWebsite;

const PAGES = {
  flights: 'Book cheap flights to Lisbon with our travel desk.',
  grinder: 'Clean the burrs of your coffee grinder every month.',
  hotel: 'Hotel rooms near the river in Porto, breakfast included.',
};

const setPlan = (s: SeededWebsite, plan: string) =>
  t.services.controlDb.prepare('UPDATE organizations SET plan = ? WHERE id = ?').run(plan, s.organizationId);

async function publish(websiteId: string): Promise<void> {
  const target = await createTargetFromSettings(t.services.config.settings);
  try {
    await runPublish({
      settings: t.services.config.settings,
      controlDb: t.services.controlDb,
      target,
      source: { kind: 'website', websiteId },
    });
  } finally {
    await target.close();
  }
}

async function connect(s: SeededWebsite): Promise<Client> {
  const client = new Client({ name: 'nodectl-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${t.url}/v1/websites/${s.websiteId}/mcp`), {
      requestInit: { headers: { 'X-Api-Key': s.apiKey } },
    }),
  );
  return client;
}

const search = async (client: Client, args: Json): Promise<Json> =>
  (await client.callTool({ name: 'search_website_knowledge', arguments: args })) as Json;
const urls = (result: Json) =>
  (result.structuredContent.hits as Array<{ source_url?: string }>).map((h) => h.source_url);

beforeAll(async () => {
  provider = await startEmbeddingsServer();
  t = await buildTestApp({
    listen: true,
    settings: {
      embeddingsUrl: provider.url,
      embeddingsModel: 'hash-bow',
      embeddingsDimensions: DIMENSIONS,
      embeddingsBatchSize: 8,
    },
  });
  worker = createWorker(t.services);
  site = await seedWebsite(t.services, 'example.com');
  setPlan(site, 'business');
  const res = await injectSigned(t.app, '/v1/ingest/batch', {
    token: site.connectorToken,
    websiteId: site.websiteId,
    nowMs: t.services.now(),
    body: { website_id: site.websiteId, items: Object.entries(PAGES).map(([id, text]) => pageItem(id, text)) },
  });
  expect(res.status, res.body).toBe(200);
  await worker.drain();
  expect(t.services.jobs.list({ kind: 'embeddings.compute' }).map((j) => j.state)).toEqual(['succeeded']);
  await publish(site.websiteId);

  // A business website whose graph holds no vector: its node's embeddings manifest is not_computed.
  bare = await seedWebsite(t.services, 'blog.fieldnotes.example');
  setPlan(bare, 'business');
  buildGraphFromItems(
    loadFixture(join(PROJECT_ROOT, 'fixtures', 'blog')).items,
    loadWebsiteInfo(t.services.controlDb, bare.websiteId)!,
    { file: graphDbPath(t.services.layout, bare.websiteId), receivedAt: new Date().toISOString() },
  ).close();
  await publish(bare.websiteId);
}, 90_000);
afterAll(async () => {
  await worker?.stop();
  await t?.close();
  await provider?.close();
});

describe('search_website_knowledge modes over HTTP MCP', () => {
  let client: Client;
  beforeAll(async () => {
    client = await connect(site);
  });
  afterAll(async () => client?.close());

  it('advertises mode as an input and reports it in the output schema', async () => {
    const tool = (await client.listTools()).tools.find((x) => x.name === 'search_website_knowledge')!;
    expect((tool.inputSchema.properties as Json).mode).toMatchObject({ enum: ['keyword', 'vector', 'hybrid'] });
    expect(tool.inputSchema.required).toEqual(['query']);
    expect(tool.outputSchema?.required).toContain('mode');
  });

  it("finds by meaning, from the node's vectors, the page keyword search misses", async () => {
    const keyword = await search(client, { query: 'inexpensive airfare', mode: 'keyword' });
    expect(keyword.isError ?? false).toBe(false);
    expect(keyword.structuredContent).toMatchObject({ mode: 'keyword', hits: [] });

    const hybrid = await search(client, { query: 'inexpensive airfare' });
    expect(hybrid.structuredContent.mode).toBe('hybrid');
    expect(urls(hybrid)[0]).toBe('https://example.com/flights');
    expect(JSON.parse(hybrid.content[0].text)).toEqual(hybrid.structuredContent);

    const vector = await search(client, { query: 'inexpensive airfare', mode: 'vector', limit: 1 });
    expect(vector.structuredContent.mode).toBe('vector');
    expect(urls(vector)).toEqual(['https://example.com/flights']);
    expect(vector.structuredContent.hits[0]).toMatchObject({
      kind: 'chunk',
      snippet: expect.stringContaining('cheap flights'),
    });

    // Words still lead in hybrid mode.
    expect(urls(await search(client, { query: 'grinder' }))[0]).toBe('https://example.com/grinder');
  });

  it('falls back to keyword hits when the provider is down and no mode was asked for; a named mode is a tool error', async () => {
    provider.mode = 'error';
    try {
      const fallback = await search(client, { query: 'hotel rooms porto' });
      expect(fallback.isError ?? false).toBe(false);
      expect(fallback.structuredContent.mode).toBe('keyword');
      expect(urls(fallback)).toContain('https://example.com/hotel');
      const refused = await search(client, { query: 'river hotel', mode: 'hybrid' });
      expect(refused.isError).toBe(true);
      expect(refused.content[0].text).toMatch(
        /^The embeddings provider could not embed the query \(.*answered 500.*\); retry, or pass mode "keyword"\.$/,
      );
    } finally {
      provider.mode = 'up';
    }
  });

  it("gates vectors by the website's plan at each request, as the search API does", async () => {
    setPlan(site, 'pro');
    try {
      const refused = await search(client, { query: 'budget plane', mode: 'vector' });
      expect(refused.isError).toBe(true);
      expect(refused.content[0].text).toContain("the website's plan lacks cap.advanced or cap.embeddings");
      expect((await search(client, { query: 'budget plane' })).structuredContent).toMatchObject({
        mode: 'keyword',
        hits: [],
      });
    } finally {
      setPlan(site, 'business');
    }
    expect(urls(await search(client, { query: 'budget plane', mode: 'vector', limit: 1 }))).toEqual([
      'https://example.com/flights',
    ]);
  });
});

describe('search_website_knowledge over a node without vectors', () => {
  it('refuses mode vector as a tool error saying what to fix; the default and hybrid answer keyword hits', async () => {
    const client = await connect(bare);
    try {
      const refused = await search(client, { query: 'golden eagles', mode: 'vector' });
      expect(refused.isError).toBe(true);
      expect(refused.content[0].text).toBe(
        'mode "vector" cannot run: the live node carries no vectors (its embeddings-manifest.json is not_computed): publish again once the embedding job has stored vectors. Leave mode out, or pass "keyword" or "hybrid".',
      );
      for (const mode of [undefined, 'hybrid']) {
        const result = await search(client, { query: 'golden eagles', ...(mode ? { mode } : {}) });
        expect(result.structuredContent.mode).toBe('keyword');
        expect(result.structuredContent.hits.length).toBeGreaterThan(0);
      }
    } finally {
      await client.close();
    }
  });
});
