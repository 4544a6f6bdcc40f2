import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFixture } from '../../../src/compiler/index.js';
import { buildGraphFromItems } from '../../../src/ingest/graph/build-from-items.js';
import { dataDirLayout, graphDbPath } from '../../../src/platform/storage/data-dir.js';
import { loadWebsiteInfo } from '../../../src/control/records/load-website.js';
import { buildTestApp, injectJson, seedWebsite, type SeededWebsite, type TestApp } from '../../helpers/app.js';
import { SHOP, SHOP_DOMAIN } from './support.js';

// In process through inject(); the publish worker thread runs from dist/ (`npm run build` first).
let t: TestApp;
let site: SeededWebsite;
let brokenEntityId: string;

beforeAll(async () => {
  t = await buildTestApp();
  site = await seedWebsite(t.services, SHOP_DOMAIN);
  const layout = dataDirLayout(t.dataDir);
  const info = loadWebsiteInfo(t.services.controlDb, site.websiteId)!;
  const graph = buildGraphFromItems(loadFixture(SHOP).items, info, {
    receivedAt: '2026-03-02T09:00:00Z',
    file: graphDbPath(layout, site.websiteId),
  });
  try {
    // One entity with a confidence above 1: the compiler's schema check leaves it out of the node.
    const db = graph.db;
    brokenEntityId = (db.prepare('SELECT id FROM entities ORDER BY id LIMIT 1').get() as { id: string }).id;
    db.prepare('UPDATE entities SET confidence = 1.7 WHERE id = ?').run(brokenEntityId);
  } finally {
    graph.close();
  }
}, 60_000);
afterAll(async () => t?.close());

const rejectedMetric = async (kind: string) => {
  const res = await injectJson(t.app, { method: 'GET', url: '/metrics' });
  const line = res.body.split('\n').find((l) => l.startsWith(`nodectl_compile_records_rejected_total{kind="${kind}"}`));
  return line === undefined ? 0 : Number(line.split(' ').pop());
};

describe('a publish over HTTP reports the records its compile left out', () => {
  it('bug "the worker-thread publish drops the compile\'s counts": the response lists the rejected record and nodectl_compile_records_rejected_total{kind="entities"} grows by one', async () => {
    expect(await rejectedMetric('entities')).toBe(0);
    const res = await injectJson(t.app, {
      method: 'POST',
      url: `/v1/websites/${site.websiteId}/publish`,
      headers: { authorization: `Bearer ${site.apiKey}` },
    });
    expect(res.status, res.body).toBe(200);
    const rejected = res.json.data.rejected;
    expect(rejected).toMatchObject({
      total: 1,
      counts: { entities: 1, facts: 0, sources: 0, relationships: 0, chunks: 0, qa: 0 },
    });
    expect(rejected.records).toEqual([
      expect.objectContaining({ id: brokenEntityId, file: expect.stringMatching(/^entities\./), path: 'confidence' }),
    ]);
    expect(await rejectedMetric('entities')).toBe(1);

    // An unchanged republish compiles again and reports (and counts) the record again: the graph still holds it.
    const again = await injectJson(t.app, {
      method: 'POST',
      url: `/v1/websites/${site.websiteId}/publish`,
      headers: { authorization: `Bearer ${site.apiKey}` },
    });
    expect(again.json.data).toMatchObject({ alreadyLive: true, rejected: { total: 1 } });
    expect(await rejectedMetric('entities')).toBe(2);
  }, 60_000);
});
