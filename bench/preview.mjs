#!/usr/bin/env node
// Node preview (docs/knowledge.md "Node preview") against the compile a publish runs, on one
// graph of N generated items (bench/lib/zipf-items.mjs) in a real data directory:
//   compile   compileWebsite into a temp folder, as runPublish does (files written and fsynced);
//   preview   the preview service's first answer (a worker thread compiles into a sink that keeps
//             only llms.txt and the priority feed, then the live manifest is compared);
//   cached    the next answer for the same graph state.
// Three alternating rounds (a fresh preview service each, so the first answer compiles); medians.
// Usage: npm run build && node bench/preview.mjs [--items N]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServices } from '../dist/daemon/create-services.js';
import { compileWebsite } from '../dist/compiler/website.js';
import { resolveConfig } from '../dist/platform/config/config.js';
import { processRawItems } from '../dist/ingest/graph/process-raw-items.js';
import { writeRawItems } from '../dist/ingest/graph/raw-items.js';
import { createPreviewService } from '../dist/output/knowledge/preview-service.js';
import { createTargetFromSettings } from '../dist/output/publish/targets/index.js';
import { createOrganization } from '../dist/control/records/organizations.js';
import { createUser } from '../dist/control/records/users.js';
import { createWebsite } from '../dist/control/records/websites.js';
import { loadWebsiteInfo } from '../dist/control/records/load-website.js';
import { createItemGenerator } from './lib/zipf-items.mjs';
import { upperMedian } from './lib/stats.mjs';

const at = process.argv.indexOf('--items');
const N = at > 0 ? Number(process.argv[at + 1]) : 10_000;
const dir = mkdtempSync(join(tmpdir(), 'nodectl-bench-preview-'));
try {
  const config = resolveConfig({ flags: { dataDir: join(dir, 'data') }, env: {} });
  const services = createServices(config);
  await createUser(services.controlDb, { email: 'owner@bench.example', password: 'correct-horse-battery' });
  const org = createOrganization(services.controlDb, { name: 'Bench', ownerEmail: 'owner@bench.example', plan: 'pro' });
  const websiteId = createWebsite(services.controlDb, {
    organizationId: org.id,
    domain: 'shop.example',
    name: 'Bench',
    verifiedMethod: 'dns_txt',
  }).id;
  const site = loadWebsiteInfo(services.controlDb, websiteId);
  const graph = services.graphs.get(websiteId);
  const gen = createItemGenerator(42);
  for (let start = 0; start < N; start += 1000) {
    const items = Array.from({ length: Math.min(1000, N - start) }, (_, i) => gen.item(start + i));
    const out = writeRawItems(graph, items, (i) => JSON.stringify(items[i]), {
      connectorId: 'conn_bench',
      defaultLanguage: 'en',
      receivedAt: '2026-02-01T12:00:00.000Z',
    });
    processRawItems(
      graph,
      site,
      out.map((o) => o.rawContentId),
      { now: '2026-02-01T12:00:00.000Z' },
    );
  }
  const target = await createTargetFromSettings(config.settings);
  const runs = { compile: [], preview: [], cached: [] };
  for (let round = 0; round < 3; round++) {
    let t = performance.now();
    await compileWebsite(config.settings.dataDir, websiteId, join(dir, `node-${round}`), {
      buildTime: '2026-03-01T00:00:00Z',
    });
    runs.compile.push(performance.now() - t);
    const previews = createPreviewService(services, async () => target);
    t = performance.now();
    const first = await previews.preview(websiteId);
    runs.preview.push(performance.now() - t);
    t = performance.now();
    const again = await previews.preview(websiteId);
    runs.cached.push(performance.now() - t);
    if (first.cached || !again.cached) throw new Error('the preview cache did not behave');
    await previews.close();
  }
  await target.close();
  services.close();
  const m = Object.fromEntries(Object.entries(runs).map(([k, v]) => [k, Math.round(upperMedian(v) * 10) / 10]));
  console.log(
    JSON.stringify(
      {
        items: N,
        compile_ms: m.compile,
        preview_ms: m.preview,
        cached_preview_ms: m.cached,
        preview_vs_compile: Math.round((m.preview / m.compile) * 1000) / 1000,
        first_vs_cached: Math.round(m.preview / m.cached),
        runs: Object.fromEntries(Object.entries(runs).map(([k, v]) => [k, v.map((x) => Math.round(x))])),
      },
      null,
      2,
    ),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
