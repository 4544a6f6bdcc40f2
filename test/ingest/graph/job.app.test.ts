import { afterEach, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/platform/config/config.js';
import { type AppServices } from '../../../src/platform/app/services.js';
import { createServices } from '../../../src/daemon/create-services.js';
import { runContentIngestJob } from '../../../src/ingest/graph/run-content-ingest.js';
import { SqliteGraphReader } from '../../../src/ingest/graph/reader.js';
import { writeRawItems } from '../../../src/ingest/graph/raw-items.js';
import { contentIngestJob } from '../../../src/ingest/graph/content-ingest-job.js';
import { JOBS } from '../../../src/daemon/job-definitions.js';
import { loadFieldMappings, loadWebsiteInfo } from '../../../src/control/records/load-website.js';
import type { IngestItem } from '../../../src/platform/contract/ingest-item.js';
import { makeTempDir } from '../../helpers/paths.js';

let services: AppServices | undefined;
let cleanup: (() => void) | undefined;
afterEach(() => {
  services?.close();
  cleanup?.();
  services = undefined;
});

const NOW = Date.parse('2026-02-01T12:00:00Z');

function setup(): AppServices {
  const temp = makeTempDir();
  cleanup = temp.cleanup;
  services = createServices(resolveConfig({ flags: { dataDir: temp.dir }, env: {} }), { now: () => NOW });
  const db = services.controlDb;
  db.prepare(
    `INSERT INTO organizations (id, name, slug, plan, created_at) VALUES ('org_1', 'Acme', 'acme', 'pro', 'x')`,
  ).run();
  db.prepare(
    `INSERT INTO websites (id, organization_id, domain, name, brand, default_language, created_at) VALUES ('web_1', 'org_1', 'Shop.Example', 'Acme Shop', NULL, 'de', 'x')`,
  ).run();
  db.prepare(
    `INSERT INTO website_aliases (website_id, domain, verified) VALUES ('web_1', 'www.shop.example', 1), ('web_1', 'old.example', 0)`,
  ).run();
  db.prepare(
    `INSERT INTO verifications (website_id, method, state, updated_at) VALUES ('web_1', 'well_known_file', 'grace', 'x')`,
  ).run();
  db.prepare(
    `INSERT INTO field_mappings (website_id, source_path, target, attribute_name, provenance_method, created_at) VALUES ('web_1', 'json.subtitle', 'attribute', 'subtitle', 'cms_field', 'x')`,
  ).run();
  return services;
}

const item = (id: string, text: string): IngestItem => ({
  type: 'post',
  id,
  url: `https://shop.example/${id}`,
  title: `Post ${id}`,
  text,
  checksum: 'sha256:' + id.padStart(64, '0'),
});

describe('loadWebsiteInfo', () => {
  it('reads website, plan, verification and verified aliases from control.sqlite', () => {
    const s = setup();
    expect(loadWebsiteInfo(s.controlDb, 'web_1')).toEqual({
      websiteId: 'web_1',
      domain: 'shop.example',
      brand: 'Acme Shop',
      defaultLanguage: 'de',
      plan: 'pro',
      verification: { method: 'well_known', state: 'grace' },
      aliases: ['www.shop.example'],
    });
    expect(loadWebsiteInfo(s.controlDb, 'web_404')).toBeUndefined();
    expect(loadFieldMappings(s.controlDb, 'web_1')).toEqual([
      { source_path: 'json.subtitle', target: 'attribute', attribute_name: 'subtitle', provenance_method: 'cms_field' },
    ]);
  });
});

describe('content.ingest job', () => {
  it('is registered, processes pending raw items, then erases items named in removed', async () => {
    const s = setup();
    const graph = s.graphs.get('web_1');
    const items = [item('1', 'First post about kettles.'), item('2', 'Second post about pans.')];
    const out = writeRawItems(graph, items, (i) => JSON.stringify(items[i]), {
      connectorId: 'conn_1',
      defaultLanguage: 'de',
      receivedAt: new Date(NOW).toISOString(),
    });
    const ids = out.flatMap((o) => (o.status === 'accepted' ? [o.rawContentId] : []));
    expect(JOBS).toContain(contentIngestJob);
    await contentIngestJob.handler(
      { website_id: 'web_1', raw_content_ids: ids },
      { job: { id: 'job_1' } as never, services: s, signal: new AbortController().signal },
    );
    expect(graph.prepare(`SELECT state FROM raw_items ORDER BY item_id`).pluck().all()).toEqual([
      'processed',
      'processed',
    ]);
    const reader = new SqliteGraphReader(graph);
    expect([...reader.sources()].map((x) => x.trust)).toEqual([0.4, 0.4]); // well_known 0.8 x grace 0.5

    // What DELETE /v1/ingest/items does for gdpr_erasure, then the job it enqueues.
    graph
      .prepare(
        `UPDATE raw_items SET state = 'tombstoned', tombstone_reason = 'gdpr_erasure', body = NULL, url = '' WHERE item_id = '1'`,
      )
      .run();
    const result = await runContentIngestJob(
      { website_id: 'web_1', raw_content_ids: [], removed: [{ type: 'post', id: '1' }], reason: 'gdpr_erasure' },
      s,
    );
    expect(result).toMatchObject({ removed: 1 });
    expect(graph.prepare(`SELECT COUNT(*) FROM item_contributions WHERE item_key = 'post:1'`).pluck().get()).toBe(0);
    expect(graph.prepare(`SELECT COUNT(*) FROM chunks WHERE text LIKE '%kettles%'`).pluck().get()).toBe(0);
    expect(graph.prepare(`SELECT item_id, state, body FROM raw_items ORDER BY item_id`).all()).toEqual([
      { item_id: '1', state: 'tombstoned', body: null },
      { item_id: '2', state: 'processed', body: JSON.stringify(items[1]) },
    ]);
  });

  it('is a no-op for a website deleted since the job was queued, and rejects a malformed payload', async () => {
    const s = setup();
    expect(await runContentIngestJob({ website_id: 'web_gone', raw_content_ids: ['raw_1'] }, s)).toBeNull();
    expect(() => s.jobs.enqueue(contentIngestJob, { raw_content_ids: 'x' } as never)).toThrow(
      /content\.ingest payload is invalid: website_id: .*; raw_content_ids: /,
    );
  });
});
