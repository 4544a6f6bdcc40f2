import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadFixture } from '../../../src/compiler/index.js';
import { nodeBaseUrl } from '../../../src/platform/config/config.js';
import { buildGraphFromItems } from '../../../src/ingest/graph/build-from-items.js';
import { graphDbPath } from '../../../src/platform/storage/data-dir.js';
import { createApiKey } from '../../../src/control/records/api-keys.js';
import { loadWebsiteInfo } from '../../../src/control/records/load-website.js';
import { buildTestApp, fakeClock, seedWebsite, type TestApp } from '../../helpers/app.js';
import { SHOP, SHOP_DOMAIN } from './support.js';

// In process through inject(), on a fake clock; the publish worker thread runs from dist/ (`npm run build` first).
const clock = fakeClock();
let t: TestApp;
let websiteId: string;
let editorKey: string;
let adminKey: string;

beforeAll(async () => {
  // The app's periodic flushes (the read counter's every 2 s) on a fake clock too: they run when a test moves it.
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
  t = await buildTestApp({ clock });
  const site = await seedWebsite(t.services, SHOP_DOMAIN);
  websiteId = site.websiteId;
  editorKey = createApiKey(t.services.controlDb, { organizationId: site.organizationId, role: 'editor' }).key;
  adminKey = createApiKey(t.services.controlDb, {
    organizationId: site.organizationId,
    role: 'organization_admin',
  }).key;
  // The website's graph, built from the shop fixture's items.
  const info = loadWebsiteInfo(t.services.controlDb, websiteId)!;
  buildGraphFromItems(loadFixture(SHOP).items, info, {
    receivedAt: '2026-03-02T09:00:00Z',
    file: graphDbPath(t.services.layout, websiteId),
  }).close();
}, 60_000);
afterAll(async () => {
  await t?.close();
  vi.useRealTimers();
});

const call = async (
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  key?: string,
  headers: Record<string, string> = {},
  body?: unknown,
) => {
  const json =
    body === undefined ? {} : { payload: JSON.stringify(body), contentType: { 'content-type': 'application/json' } };
  const res = await t.app.inject({
    method,
    url: path,
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers, ...json.contentType },
    ...(json.payload ? { payload: json.payload } : {}),
  });
  return { status: res.statusCode, headers: res.headers, text: res.body, json: () => JSON.parse(res.body) };
};

describe('publish over HTTP and node files served by the app', () => {
  let versionUlid: string;

  it('unknown domains and files are 404 node.not_found in the envelope', async () => {
    const res = await call('GET', `/nodes/${SHOP_DOMAIN}/manifest.json`);
    expect(res.status).toBe(404);
    expect(res.json()).toMatchObject({ ok: false, error: { code: 'node.not_found' } });
  });

  it('POST /v1/websites/:id/publish needs a key with the editor role and answers 200 with the version', async () => {
    expect((await call('POST', `/v1/websites/${websiteId}/publish`)).status).toBe(401);
    const res = await call('POST', `/v1/websites/${websiteId}/publish`, editorKey);
    expect(res.status, res.text).toBe(200);
    const data = res.json().data;
    expect(data.versionUlid).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(data.versionLabel).toMatch(/^\d{4}-\d{2}-\d{2}\.1$/);
    expect(data.cdnPath).toBe(`${nodeBaseUrl(t.services.config.settings)}/${SHOP_DOMAIN}`);
    expect(data.files.length).toBeGreaterThan(10);
    versionUlid = data.versionUlid;
    const other = await call('POST', `/v1/websites/web_doesnotexist/publish`, editorKey);
    expect(other.json()).toMatchObject({ ok: false, error: { code: 'website.not_found' } });
  });

  it('a second publish of the unchanged graph keeps the live version; {"force": true} publishes a new one', async () => {
    // Build times have second precision: a later second gives a new node_version for the same content.
    const nextSecond = () => clock.advance(1_000);
    nextSecond();
    const again = await call('POST', `/v1/websites/${websiteId}/publish`, editorKey);
    expect(again.status, again.text).toBe(200);
    expect(again.json().data).toMatchObject({ alreadyLive: true, versionUlid, bytesUploaded: 0 });
    const bad = await call('POST', `/v1/websites/${websiteId}/publish`, editorKey, {}, { force: 'yes' });
    expect(bad.status).toBe(422);
    nextSecond();
    const forced = await call('POST', `/v1/websites/${websiteId}/publish`, editorKey, {}, { force: true });
    expect(forced.status, forced.text).toBe(200);
    const data = forced.json().data;
    expect(data).toMatchObject({ alreadyLive: false, previousVersion: versionUlid });
    expect(data.versionLabel).toMatch(/^\d{4}-\d{2}-\d{2}\.2$/);
    versionUlid = data.versionUlid;
  });

  it('serves the live files raw with Content-Type, Cache-Control and a strong ETag; If-None-Match gives 304', async () => {
    const manifest = await call('GET', `/nodes/${SHOP_DOMAIN}/manifest.json`);
    expect(manifest.status).toBe(200);
    expect(manifest.headers['content-type']).toMatch(/^application\/json/);
    expect(manifest.headers['cache-control']).toBe('public, max-age=60, stale-while-revalidate=300');
    const m = manifest.json();
    expect(m.node_version).toBe(versionUlid);
    const facts = m.files.find((f: { path: string }) => f.path === 'facts.en.jsonl');
    const res = await call('GET', `/nodes/${SHOP_DOMAIN}/facts.en.jsonl`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/x-ndjson');
    expect(res.headers.etag).toBe(`"${facts.checksum.slice(7)}"`);
    expect(Buffer.byteLength(res.text)).toBe(facts.bytes);
    expect(
      (
        await call('GET', `/nodes/${SHOP_DOMAIN}/facts.en.jsonl`, undefined, {
          'if-none-match': res.headers.etag as string,
        })
      ).status,
    ).toBe(304);
    const pinned = await call('GET', `/nodes/${SHOP_DOMAIN}/versions/${versionUlid}/facts.en.jsonl`);
    expect(pinned.status).toBe(200);
    expect(pinned.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(pinned.text).toBe(res.text);
    expect((await call('GET', `/nodes/${SHOP_DOMAIN}/nothing.json`)).json()).toMatchObject({
      error: { code: 'node.not_found' },
    });
  });

  it('counts node reads in analytics_events (node.reads per hour) and the metrics', async () => {
    vi.advanceTimersByTime(2_000); // the read counter writes every 2 s
    const rows = t.services.controlDb
      .prepare(
        "SELECT period_start AS periodStart, value FROM analytics_events WHERE website_id = ? AND metric = 'node.reads'",
      )
      .all(websiteId) as Array<{ periodStart: string; value: number }>;
    expect(rows.reduce((s, r) => s + r.value, 0)).toBe(4); // three 200s and one 304
    expect(rows.map((r) => r.periodStart)).toEqual(['2026-03-02T10:00:00Z']);
    const metrics = await call('GET', '/metrics');
    expect(metrics.text).toMatch(/nodectl_node_reads_total\{status="200"\} 3/);
  });

  it('DELETE /v1/websites/:id/node takes the node down (organization_admin); the alias answers 410; a second takedown is harmless', async () => {
    expect((await call('DELETE', `/v1/websites/${websiteId}/node`, editorKey)).json()).toMatchObject({
      error: { code: 'auth.forbidden' },
    });
    const res = await call('DELETE', `/v1/websites/${websiteId}/node`, adminKey);
    expect(res.status).toBe(200);
    expect(res.json().data).toEqual({ tombstoned: true });
    const gone = await call('GET', `/nodes/${SHOP_DOMAIN}/manifest.json`);
    expect(gone.status).toBe(410);
    expect(gone.json()).toMatchObject({ ok: false, error: { code: 'node.gone' } });
    expect((await call('GET', `/nodes/${SHOP_DOMAIN}/versions/${versionUlid}/facts.en.jsonl`)).status).toBe(410);
    const again = await call('DELETE', `/v1/websites/${websiteId}/node`, adminKey);
    expect(again.status).toBe(200);
    expect(again.json().data).toEqual({ tombstoned: true });
  });
});
