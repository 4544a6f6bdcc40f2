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

// In process through inject(): the shop fixture's graph in the website's real graph database.
let t: TestApp;
let websiteId: string;
let emptyWebsiteId: string;
let viewerKey: string;
let editorKey: string;

beforeAll(async () => {
  t = await buildTestApp({ clock: fakeClock() });
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

const get = (path: string, key = viewerKey) =>
  injectJson(t.app, { method: 'GET', url: path, headers: { authorization: `Bearer ${key}` } });
const search = (query: string, key = viewerKey) => get(`/v1/websites/${websiteId}/knowledge/search?${query}`, key);
const outcome = (res: { status: number; json: any }) => `${res.status} ${res.json?.error?.code ?? 'ok'}`;
const grinderId = async () =>
  (await search('q=Comandante%20C40%20Hand%20Grinder&kind=entity&limit=1')).json.data.items[0].id as string;

describe('GET /v1/websites/:id/knowledge/search', () => {
  it('answers ranked hits {kind, id, score, title, snippet, entity_id?, source_url?} with stable ids, as a list', async () => {
    const res = await search('q=hand%20grinder');
    expect(res.status, res.body).toBe(200);
    const { items, next_cursor } = res.json.data;
    expect(next_cursor).toBeNull();
    expect(items[0]).toMatchObject({
      kind: 'entity',
      title: 'Comandante C40 Hand Grinder',
      snippet: 'Comandante C40 <mark>Hand</mark> <mark>Grinder</mark>',
      language: 'en',
      source_url: 'https://www.kaffeewerk.example/products/hand-grinder-c40',
    });
    for (const hit of items) {
      expect(hit.id).toMatch(new RegExp(`^${hit.kind}_[0-9a-f]{24}$`));
      expect(
        Object.keys(hit).every((k) =>
          ['kind', 'id', 'score', 'language', 'title', 'snippet', 'entity_id', 'source_url'].includes(k),
        ),
      ).toBe(true);
    }
    expect(items.map((h: { score: number }) => h.score)).toEqual(
      [...items.map((h: { score: number }) => h.score)].sort((a, b) => b - a),
    );
    const facts = (await search('q=hand%20grinder&kind=fact')).json.data.items;
    expect(facts.length).toBeGreaterThan(0);
    expect(
      facts.every((h: { kind: string; entity_id?: string }) => h.kind === 'fact' && /^entity_/.test(h.entity_id ?? '')),
    ).toBe(true);
    // Diacritics and case fold; the last term is a prefix.
    expect((await search('q=HANDMUHLE')).json.data.items[0]).toMatchObject({ title: 'Comandante C40 Handmühle' });
    expect((await search('q=handm')).json.data.items.length).toBeGreaterThan(0);
  });

  it('pages with next_cursor through the same hits one large page gives, without repeats or gaps', async () => {
    const all = (await search('q=kaffeewerk&limit=100')).json.data.items.map((h: { id: string }) => h.id);
    expect(all.length).toBeGreaterThan(7);
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await search(`q=kaffeewerk&limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status, res.body).toBe(200);
      paged.push(...res.json.data.items.map((h: { id: string }) => h.id));
      cursor = res.json.data.next_cursor;
    } while (cursor);
    expect(paged).toEqual(all);
    const first = (await search('q=kaffeewerk&limit=3')).json.data.next_cursor as string;
    expect(outcome(await search(`q=coffee&limit=3&cursor=${encodeURIComponent(first)}`))).toBe('422 validation.failed');
    expect(outcome(await search(`q=kaffeewerk&kind=fact&limit=3&cursor=${encodeURIComponent(first)}`))).toBe(
      '422 validation.failed',
    );
    expect(outcome(await search('q=kaffeewerk&cursor=c1.bm90IGpzb24'))).toBe('422 validation.failed');
  });

  it('q missing or empty, a bad kind or limit is 422 validation.failed naming the field; FTS5 syntax in q is only text', async () => {
    for (const [query, field] of [
      ['', 'q'],
      ['q=', 'q'],
      ['q=%20%20', 'q'],
      ['q=x&kind=qa', 'kind'],
      ['q=x&limit=0', 'limit'],
      [`q=${'x'.repeat(501)}`, 'q'],
    ] as const) {
      const res = await search(query);
      expect(outcome(res), query).toBe('422 validation.failed');
      expect(
        res.json.error.details.fields.map((f: { path: string }) => f.path),
        query,
      ).toContain(field);
    }
    for (const q of ['a" OR b*', 'NEAR(a b)', 'name:grinder', '"', '(((', '*', 'grinder NOT', '"hand grinder"']) {
      const res = await search(`q=${encodeURIComponent(q)}`);
      expect(res.status, `${q}: ${res.body}`).toBe(200);
    }
    expect((await search(`q=${encodeURIComponent('"hand grinder"')}`)).json.data.items.length).toBeGreaterThan(0);
    expect((await search(`q=${encodeURIComponent('"grinder hand"')}`)).json.data.items).toEqual([]);
  });

  it('a website with nothing ingested has no hits (and gets no graph file from the read)', async () => {
    const res = await get(`/v1/websites/${emptyWebsiteId}/knowledge/search?q=grinder`);
    expect(res.json).toMatchObject({ ok: true, data: { items: [], next_cursor: null } });
    const entity = await get(`/v1/websites/${emptyWebsiteId}/entities/entity_${'0'.repeat(24)}/facts`);
    expect(outcome(entity)).toBe('404 entity.not_found');
    expect((await import('node:fs')).existsSync(graphDbPath(t.services.layout, emptyWebsiteId))).toBe(false);
  });
});

describe('GET /v1/websites/:id/entities/:eid/facts and /related', () => {
  it('facts: the entity and its exported facts (survivors, most important first); include=candidates adds superseded candidates with provenance, for editors only', async () => {
    const id = await grinderId();
    const res = await get(`/v1/websites/${websiteId}/entities/${id}/facts`);
    expect(res.status, res.body).toBe(200);
    const { entity, facts } = res.json.data;
    expect(entity).toMatchObject({ id, type: 'Product', name: 'Comandante C40 Hand Grinder', language: 'en' });
    expect(facts.find((f: { predicate: string }) => f.predicate === 'price')).toMatchObject({
      value: 259,
      language: 'en',
      provenance_method: expect.any(String),
      source_url: expect.stringMatching(/^https:/),
    });
    expect(new Set(facts.map((f: { id: string }) => f.id)).size).toBe(facts.length);
    expect(facts.every((f: { candidates?: unknown }) => f.candidates === undefined)).toBe(true);
    const importance = facts.map((f: { importance: number }) => f.importance);
    expect(importance).toEqual([...importance].sort((a, b) => b - a));

    expect(outcome(await get(`/v1/websites/${websiteId}/entities/${id}/facts?include=candidates`))).toBe(
      '403 auth.forbidden',
    );
    expect(outcome(await get(`/v1/websites/${websiteId}/entities/${id}/facts?include=everything`, editorKey))).toBe(
      '422 validation.failed',
    );
    const withCandidates = (await get(`/v1/websites/${websiteId}/entities/${id}/facts?include=candidates`, editorKey))
      .json.data.facts;
    const name = withCandidates.find((f: { predicate: string }) => f.predicate === 'name');
    expect(name.value).toBe('Comandante C40 Hand Grinder');
    expect(name.candidates.length).toBeGreaterThan(0);
    expect(name.candidates[0]).toMatchObject({
      status: 'superseded',
      provenance_method: expect.any(String),
      confidence: expect.any(Number),
      last_seen_at: expect.any(String),
    });
    expect(name.candidates.map((c: { value: string }) => c.value)).toContain(
      'Comandante C40 Hand Grinder | Kaffeewerk',
    );
  });

  it('related: depth 1 gives the neighbours with the relationship, depth 2 the path of two hops; each entity once', async () => {
    const id = await grinderId();
    const one = await get(`/v1/websites/${websiteId}/entities/${id}/related`);
    expect(one.status, one.body).toBe(200);
    expect(one.json.data.entity.id).toBe(id);
    const byName = new Map(
      one.json.data.related.map((r: { entity: { name: string }; via: unknown[] }) => [r.entity.name, r.via]),
    );
    expect(byName.get('Comandante')).toEqual([
      { rel_id: expect.stringMatching(/^rel_[0-9a-f]{24}$/), type: 'brand', direction: 'out' },
    ]);
    expect(byName.get('Grinders')).toEqual([
      { rel_id: expect.stringMatching(/^rel_/), type: 'has_part', direction: 'in' },
    ]);
    expect(one.json.data.related.every((r: { via: unknown[] }) => r.via.length === 1)).toBe(true);

    const two = (await get(`/v1/websites/${websiteId}/entities/${id}/related?depth=2`)).json.data;
    const ids = two.related.map((r: { entity: { id: string } }) => r.entity.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).not.toContain(id);
    const german = two.related.find((r: { entity: { name: string } }) => r.entity.name === 'Comandante C40 Handmühle');
    expect(german.via).toHaveLength(2);
    expect(german.via[0]).toMatchObject({ direction: 'out' });
    expect(two.related.slice(0, one.json.data.related.length)).toEqual(one.json.data.related);
    expect(two.truncated).toBe(false);
    const capped = (await get(`/v1/websites/${websiteId}/entities/${id}/related?depth=2&limit=2`)).json.data;
    expect(capped).toMatchObject({ truncated: true });
    expect(capped.related).toHaveLength(2);
    expect(outcome(await get(`/v1/websites/${websiteId}/entities/${id}/related?depth=3`))).toBe(
      '422 validation.failed',
    );
  });

  it('unknown, malformed and hidden entity ids are 404 entity.not_found', async () => {
    for (const eid of [`entity_${'0'.repeat(24)}`, 'entity_xyz', 'fact_0123', '..%2F..']) {
      expect(outcome(await get(`/v1/websites/${websiteId}/entities/${eid}/facts`)), eid).toBe('404 entity.not_found');
      expect(outcome(await get(`/v1/websites/${websiteId}/entities/${eid}/related`)), eid).toBe('404 entity.not_found');
    }
  });

  it('a fact edited to hidden vanishes from search and from its entity facts; a hidden entity from everything', async () => {
    const id = await grinderId();
    const facts = (await get(`/v1/websites/${websiteId}/entities/${id}/facts`)).json.data.facts;
    const gtin = facts.find((f: { predicate: string }) => f.predicate === 'gtin');
    expect((await search('q=4260123450036&kind=fact')).json.data.items.map((h: { id: string }) => h.id)).toContain(
      gtin.id,
    );
    const db = t.services.graphs.get(websiteId);
    setEditorial(db, gtin.id, { hidden: true });
    try {
      expect(
        (await search('q=4260123450036&kind=fact')).json.data.items.map((h: { id: string }) => h.id),
      ).not.toContain(gtin.id);
      expect(
        (await get(`/v1/websites/${websiteId}/entities/${id}/facts`)).json.data.facts.map((f: { id: string }) => f.id),
      ).not.toContain(gtin.id);
      setEditorial(db, id, { hidden: true });
      expect(
        (await search('q=Comandante%20C40%20Hand%20Grinder&kind=entity')).json.data.items.map(
          (h: { id: string }) => h.id,
        ),
      ).not.toContain(id);
      expect((await search('q=high%20nitrogen%20steel&kind=fact')).json.data.items).toEqual([]);
      expect(outcome(await get(`/v1/websites/${websiteId}/entities/${id}/facts`))).toBe('404 entity.not_found');
    } finally {
      setEditorial(db, gtin.id, { hidden: false });
      setEditorial(db, id, { hidden: false });
    }
    expect((await search('q=4260123450036&kind=fact')).json.data.items.map((h: { id: string }) => h.id)).toContain(
      gtin.id,
    );
  });
});
