import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFixture } from '../../../src/compiler/index.js';
import { buildGraphFromItems } from '../../../src/ingest/graph/build-from-items.js';
import { siteHashOf, siteKeys } from '../../../src/output/publish/index.js';
import { createTargetFromSettings } from '../../../src/output/publish/targets/index.js';
import { graphDbPath } from '../../../src/platform/storage/data-dir.js';
import { openDatabase } from '../../../src/platform/storage/index.js';
import { GRAPH_DB_OPTIONS } from '../../../src/ingest/graph/index.js';
import { createApiKey } from '../../../src/control/records/api-keys.js';
import { loadWebsiteInfo } from '../../../src/control/records/load-website.js';
import {
  buildTestApp,
  fakeClock,
  injectJson,
  seedWebsite,
  type SeededWebsite,
  type TestApp,
} from '../../helpers/app.js';
import { DIMENSIONS, MODEL, rowsOf, seedVectors, vectorOf } from '../../compiler/vector-support.js';
import { SHOP, SHOP_DOMAIN } from './support.js';

// A publish of a website with embeddings on (the publish worker runs from dist/: `npm run build`
// first): the compile takes the model from the settings and carries the graph's vectors.
const clock = fakeClock();
let t: TestApp & { url?: string };
let site: SeededWebsite;
let key: string;
let seeded: string[];
let published: Buffer;

beforeAll(async () => {
  t = await buildTestApp({
    clock,
    listen: true,
    settings: {
      // Never called: the vectors are seeded into the graph.
      embeddingsUrl: 'http://127.0.0.1:9/v1/embeddings',
      embeddingsModel: MODEL,
      embeddingsDimensions: DIMENSIONS,
    },
  });
  site = await seedWebsite(t.services, SHOP_DOMAIN);
  t.services.controlDb.prepare("UPDATE organizations SET plan = 'business' WHERE id = ?").run(site.organizationId);
  key = createApiKey(t.services.controlDb, { organizationId: site.organizationId, role: 'editor' }).key;
  const file = graphDbPath(t.services.layout, site.websiteId);
  buildGraphFromItems(loadFixture(SHOP).items, loadWebsiteInfo(t.services.controlDb, site.websiteId)!, {
    receivedAt: '2026-03-02T09:00:00Z',
    file,
  }).close();
  const db = openDatabase(file, GRAPH_DB_OPTIONS);
  try {
    seeded = seedVectors(db);
  } finally {
    db.close();
  }
}, 60_000);
afterAll(async () => t?.close());

describe('publishing a website with embeddings on', () => {
  it('publishes embeddings.f32 and a computed embeddings manifest', async () => {
    const res = await injectJson(t.app, {
      method: 'POST',
      url: `/v1/websites/${site.websiteId}/publish`,
      headers: { 'x-api-key': key },
    });
    expect(res.status, res.body).toBe(200);
    const ulid = res.json.data.versionUlid as string;
    expect(res.json.data.changes).toContainEqual(expect.objectContaining({ path: 'embeddings.f32', change: 'added' }));
    const target = await createTargetFromSettings(t.services.config.settings);
    try {
      const keys = siteKeys(siteHashOf(site.websiteId));
      const manifest = JSON.parse((await target.get(keys.version(ulid, 'embeddings-manifest.json')))!.toString('utf8'));
      expect(manifest).toMatchObject({ status: 'computed', model: MODEL, dimensions: DIMENSIONS, metric: 'cosine' });
      const ids = (manifest.vectors as Array<{ chunk_id: string }>).map((v) => v.chunk_id);
      expect([...ids].sort()).toEqual(seeded);
      const body = (published = (await target.get(keys.version(ulid, 'embeddings.f32')))!);
      rowsOf(body).forEach((row, i) => expect(row).toEqual(vectorOf(ids[i]!)));
    } finally {
      await target.close();
    }
  });

  it('serves embeddings.f32 as an MCP resource of bytes (blob), not text', async () => {
    const client = new Client({ name: 'nodectl-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.url}/v1/websites/${site.websiteId}/mcp`), {
        requestInit: { headers: { 'X-Api-Key': site.apiKey } },
      }),
    );
    try {
      const uri = `nodectl://websites/${site.websiteId}/node/embeddings.f32`;
      const read = await client.readResource({ uri });
      const content = read.contents[0] as { mimeType: string; blob?: string; text?: string };
      expect(content.mimeType).toBe('application/octet-stream');
      expect(content.text).toBeUndefined();
      expect(Buffer.from(content.blob!, 'base64').equals(published)).toBe(true);
    } finally {
      await client.close();
    }
  });
});
