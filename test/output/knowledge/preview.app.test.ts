import { existsSync, readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFixture } from '../../../src/compiler/index.js';
import { buildGraphFromItems } from '../../../src/ingest/graph/build-from-items.js';
import { setEditorial } from '../../../src/ingest/graph/editorial.js';
import { graphDbPath } from '../../../src/platform/storage/data-dir.js';
import { createApiKey } from '../../../src/control/records/api-keys.js';
import { createWebsite } from '../../../src/control/records/websites.js';
import { loadWebsiteInfo } from '../../../src/control/records/load-website.js';
import { buildTestApp, fakeClock, injectJson, seedWebsite, type TestApp } from '../../helpers/app.js';
import { SHOP, SHOP_DOMAIN } from '../publish/support.js';

// In process through inject(), on a fake clock; the preview and publish workers run from dist/ (`npm run build` first).
const clock = fakeClock();
let t: TestApp;
let websiteId: string;
let emptyWebsiteId: string;
let viewerKey: string;
let editorKey: string;

beforeAll(async () => {
  t = await buildTestApp({ clock });
  const site = await seedWebsite(t.services, SHOP_DOMAIN);
  websiteId = site.websiteId;
  editorKey = site.apiKey;
  viewerKey = createApiKey(t.services.controlDb, { organizationId: site.organizationId, role: 'viewer' }).key;
  emptyWebsiteId = createWebsite(t.services.controlDb, {
    organizationId: site.organizationId,
    domain: 'empty.example',
    name: 'Empty',
  }).id;
  const info = loadWebsiteInfo(t.services.controlDb, websiteId)!;
  buildGraphFromItems(loadFixture(SHOP).items, info, {
    receivedAt: '2026-03-02T09:00:00Z',
    file: graphDbPath(t.services.layout, websiteId),
  }).close();
}, 60_000);
afterAll(async () => t?.close());

const request = (method: 'GET' | 'POST', path: string, key = viewerKey) =>
  injectJson(t.app, { method, url: path, headers: { authorization: `Bearer ${key}` } });
const preview = () => request('GET', `/v1/websites/${websiteId}/node/preview`);
const publish = async () => {
  clock.advance(1000); // the next build second: a new version's ULID time
  const res = await request('POST', `/v1/websites/${websiteId}/publish`, editorKey);
  expect(res.status, res.body).toBe(200);
  return res.json.data;
};
const statesOf = (data: { files: Array<{ path: string; state: string }> }) =>
  Object.fromEntries(data.files.map((f) => [f.path, f.state]));

describe('GET /v1/websites/:id/node/preview', () => {
  it('before any publish: every file new, llms.txt, the top entities and facts, live_version null, and nothing written to the store', async () => {
    const res = await preview();
    expect(res.status, res.body).toBe(200);
    expect(res.headers['x-nodectl-preview']).toBe('computed');
    const data = res.json.data;
    expect(data.live_version).toBeNull();
    expect(data.node_url).toMatch(new RegExp(`/nodes/${SHOP_DOMAIN.replace(/\./g, '\\.')}$`));
    expect(data.same_as_live).toBe(false);
    expect(data.removed_files).toEqual([]);
    expect(new Set(data.files.map((f: { state: string }) => f.state))).toEqual(new Set(['new']));
    expect(data.files.map((f: { path: string }) => f.path)).toEqual(
      expect.arrayContaining(['manifest.json', 'llms.txt', 'facts.en.jsonl', 'facts.de.jsonl', 'entities.en.jsonl']),
    );
    expect(data.files.find((f: { path: string }) => f.path === 'facts.en.jsonl')).toMatchObject({
      bytes: expect.any(Number),
      records: expect.any(Number),
    });
    expect(data.llms_txt).toMatch(/^# Example\n/); // the seeded website's name
    expect(data.top_entities.length).toBeGreaterThan(0);
    expect(data.top_entities[0]).toMatchObject({
      id: expect.stringMatching(/^entity_/),
      name: expect.any(String),
      importance: expect.any(Number),
    });
    expect(data.top_facts[0]).toMatchObject({
      id: expect.stringMatching(/^fact_/),
      label: expect.stringContaining(' = '),
    });
    expect(data.counts).toMatchObject({
      entities: expect.any(Number),
      facts: expect.any(Number),
      withheld: expect.any(Object),
    });
    expect(existsSync(t.services.layout.nodesDir) ? readdirSync(t.services.layout.nodesDir) : []).toEqual([]);
  });

  it('a second preview of the same graph reuses the compile (X-Nodectl-Preview: cached) and answers the same', async () => {
    const first = await preview();
    const second = await preview();
    expect(second.headers['x-nodectl-preview']).toBe('cached');
    expect(second.json.data).toEqual(first.json.data);
  });

  it('after a publish every file is unchanged against the live version, with the same sizes the publish reported', async () => {
    const published = await publish();
    const res = await preview();
    const data = res.json.data;
    expect(data.live_version).toEqual({
      node_version: published.versionUlid,
      node_version_label: published.versionLabel,
      generated_at: expect.any(String),
    });
    expect(data.same_as_live).toBe(true);
    expect(data.node_url).toBe(published.cdnPath);
    expect(new Set(data.files.map((f: { state: string }) => f.state))).toEqual(new Set(['unchanged']));
    const bytes = new Map(published.files.map((f: { path: string; bytes: number }) => [f.path, f.bytes]));
    for (const f of data.files)
      if (!['manifest.json', 'versions.json', 'changes.jsonl', 'openapi.json'].includes(f.path))
        expect(f.bytes, f.path).toBe(bytes.get(f.path));
  });

  it('a fact edited to hidden vanishes from search, from its entity facts, from the preview and from the next published node', async () => {
    const hits = (await request('GET', `/v1/websites/${websiteId}/knowledge/search?q=4260123450036&kind=fact`)).json
      .data.items;
    const hit = hits.find((h: { language: string }) => h.language === 'en');
    expect(hit).toMatchObject({
      kind: 'fact',
      id: expect.stringMatching(/^fact_/),
      entity_id: expect.stringMatching(/^entity_/),
    });
    const served = async (file: string) =>
      (await t.app.inject({ method: 'GET', url: `/nodes/${SHOP_DOMAIN}/${file}` })).body;
    expect(await served('facts.en.jsonl')).toContain(hit.id);

    setEditorial(t.services.graphs.get(websiteId), hit.id, { hidden: true });

    expect(
      (
        await request('GET', `/v1/websites/${websiteId}/knowledge/search?q=4260123450036&kind=fact`)
      ).json.data.items.map((h: { id: string }) => h.id),
    ).not.toContain(hit.id);
    expect(
      (await request('GET', `/v1/websites/${websiteId}/entities/${hit.entity_id}/facts`)).json.data.facts.map(
        (f: { id: string }) => f.id,
      ),
    ).not.toContain(hit.id);
    const after = await preview();
    expect(after.headers['x-nodectl-preview']).toBe('computed');
    expect(after.json.data.same_as_live).toBe(false);
    expect(statesOf(after.json.data)).toMatchObject({
      'facts.en.jsonl': 'changed',
      'manifest.json': 'changed',
      'sources.jsonl': 'unchanged',
    });
    expect(JSON.stringify(after.json.data.top_facts)).not.toContain(hit.id);

    await publish();
    expect(await served('facts.en.jsonl')).not.toContain(hit.id);
    expect((await preview()).json.data.same_as_live).toBe(true);
  });

  it('409 publish.nothing_to_publish for a website with nothing ingested; the preview makes no graph file', async () => {
    const res = await request('GET', `/v1/websites/${emptyWebsiteId}/node/preview`);
    expect(`${res.status} ${res.json.error.code}`).toBe('409 publish.nothing_to_publish');
    expect(existsSync(graphDbPath(t.services.layout, emptyWebsiteId))).toBe(false);
  });
});
