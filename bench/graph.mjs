#!/usr/bin/env node
// Graph store write throughput: N generated product and post pages are extracted once, then
// merged into a fresh graph file with applyContribution in batches (one transaction each), and
// also run end to end through raw_items + processRawItems. Reports items/s for the store alone
// and for the pipeline, and a re-ingestion pass (every item updated). Usage:
//   npm run build && node bench/graph.mjs [--items N]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { extractItem } from '../dist/extract/index.js';
import { applyContribution } from '../dist/graph/apply-contribution.js';
import { processRawItems } from '../dist/graph/process-raw-items.js';
import { GRAPH_DB_OPTIONS } from '../dist/graph/schema.js';
import { writeRawItems } from '../dist/graph/raw-items.js';
import { openDatabase } from '../dist/storage/sqlite.js';

const arg = process.argv.indexOf('--items');
const N = arg > 0 ? Number(process.argv[arg + 1]) : 5000;
const site = { websiteId: 'web_BENCH', domain: 'shop.example', brand: 'Acme', defaultLanguage: 'en', plan: 'pro', verification: { method: 'dns_txt', state: 'verified' }, aliases: [] };
const RECEIVED = '2026-02-01T12:00:00.000Z';
const AUTHORS = ['Jane Doe', 'John Roe', 'Ann Poe', 'Max Moe'];

function item(i, version) {
  const name = `Steel kettle model ${i}`;
  const ld = { '@context': 'https://schema.org', '@type': i % 3 === 0 ? 'BlogPosting' : 'Product', name, headline: name, sku: `SKU-${i}`,
    author: { '@type': 'Person', name: AUTHORS[i % AUTHORS.length] }, brand: { '@type': 'Brand', name: 'Acme' },
    offers: { '@type': 'Offer', price: (10 + (i % 90) + version / 10).toFixed(2), priceCurrency: 'EUR', availability: 'https://schema.org/InStock' } };
  const paragraphs = Array.from({ length: 12 }, (_, p) => `<p>Paragraph ${p} of ${name}: the kettle boils water quickly and keeps it warm for a long evening in the kitchen, made of brushed steel.</p>`).join('');
  const html = `<html lang="en"><head><title>${name}</title><meta name="description" content="${name}, version ${version}."><meta property="og:title" content="${name}">
    <script type="application/ld+json">${JSON.stringify(ld)}</script></head><body><main><h1>${name}</h1><h2>Details</h2>${paragraphs}</main></body></html>`;
  return { type: i % 3 === 0 ? 'post' : 'product', id: String(i), url: `https://shop.example/p/${i}`, html, checksum: 'sha256:' + (i * 7 + version).toString(16).padStart(64, '0') };
}

function freshDb(dir, name) {
  return openDatabase(join(dir, `${name}.sqlite`), GRAPH_DB_OPTIONS);
}

const dir = mkdtempSync(join(tmpdir(), 'nodectl-bench-graph-'));
try {
  const items = Array.from({ length: N }, (_, i) => item(i, 0));
  let t = performance.now();
  const contributions = items.map((it) => extractItem(it, site, { receivedAt: RECEIVED }));
  const extractMs = performance.now() - t;

  const db = freshDb(dir, 'store');
  const apply = (list) => {
    const start = performance.now();
    for (let i = 0; i < list.length; i += 250) db.transaction(() => { for (const c of list.slice(i, i + 250)) applyContribution(db, site, c); })();
    return performance.now() - start;
  };
  const storeMs = apply(contributions);
  const updated = items.map((it, i) => extractItem(item(i, 1), site, { receivedAt: RECEIVED }));
  const reapplyMs = apply(updated);
  const counts = Object.fromEntries(['entities', 'fact_candidates', 'relationships', 'chunks', 'qa', 'sources'].map((t) => [t, db.prepare(`SELECT COUNT(*) FROM ${t}`).pluck().get()]));
  db.close();

  const pdb = freshDb(dir, 'pipeline');
  const out = writeRawItems(pdb, items, (i) => JSON.stringify(items[i]), { connectorId: 'conn_bench', defaultLanguage: 'en', receivedAt: RECEIVED });
  t = performance.now();
  const result = processRawItems(pdb, site, out.map((o) => o.rawContentId), { now: RECEIVED });
  const pipelineMs = performance.now() - t;
  pdb.close();

  const rate = (ms) => Math.round((N / ms) * 1000);
  console.log(JSON.stringify({
    items: N,
    extract_items_per_s: rate(extractMs),
    store_items_per_s: rate(storeMs),
    store_reingest_items_per_s: rate(reapplyMs),
    pipeline_items_per_s: rate(pipelineMs),
    store_share_of_pipeline: Math.round((storeMs / (storeMs + extractMs)) * 100) / 100,
    processed: result.processed, failed: result.failed, records: counts,
  }, null, 2));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
