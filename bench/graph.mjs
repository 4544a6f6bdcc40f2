#!/usr/bin/env node
// Graph store write throughput (docs/graph.md "Throughput"). N generated product and post pages
// are written to raw_items, then turned into the graph end to end by processRawItems (parse,
// extract, merge, search index), the content.ingest job's work. The raw baseline, in the same run:
// the same rows (every table the pipeline wrote, search index included) inserted into a fresh
// graph file by plain prepared statements, one row per statement, in one transaction. Also
// reported: extraction alone, the store alone (applyContributions on extracted items, batches of
// 250) and a re-ingestion of every item with a changed price. Rates are wall clock; the CPU rates
// (process CPU time) are steadier on a shared machine. Usage:
//   npm run build && node bench/graph.mjs [--items N]
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { extractItem } from '../dist/extract/index.js';
import { applyContributions } from '../dist/graph/apply-contribution.js';
import { processRawItems } from '../dist/graph/process-raw-items.js';
import { GRAPH_DB_OPTIONS } from '../dist/graph/schema.js';
import { writeRawItems } from '../dist/graph/raw-items.js';
import { emptySearchTouched, refreshSearchDocs } from '../dist/graph/search-docs.js';
import { openDatabase } from '../dist/storage/sqlite.js';

const arg = process.argv.indexOf('--items');
const N = arg > 0 ? Number(process.argv[arg + 1]) : 5000;
const site = { websiteId: 'web_BENCH', domain: 'shop.example', brand: 'Acme', defaultLanguage: 'en', plan: 'pro', verification: { method: 'dns_txt', state: 'verified' }, aliases: [] };
const RECEIVED = '2026-02-01T12:00:00.000Z';
const AUTHORS = ['Jane Doe', 'John Roe', 'Ann Poe', 'Max Moe'];
/** Every table the graph writers fill, in the order the baseline inserts them. */
const TABLES = ['item_contributions', 'sources', 'entity_contributors', 'entities', 'fact_candidates', 'relationship_contributors', 'relationships', 'chunks', 'qa', 'qa_facts', 'search_docs'];

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

/** Runs fn; returns its wall and CPU milliseconds. */
function timed(fn) {
  const cpu = process.cpuUsage();
  const start = performance.now();
  const value = fn();
  const wallMs = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { value, wallMs, cpuMs: (used.user + used.system) / 1000 };
}

const rate = (ms) => Math.round((N / ms) * 1000);
const rates = (t) => ({ items_per_s: rate(t.wallMs), cpu_items_per_s: rate(t.cpuMs) });

const dir = mkdtempSync(join(tmpdir(), 'nodectl-bench-graph-'));
try {
  const items = Array.from({ length: N }, (_, i) => item(i, 0));
  // Warm-up on other ids, so the timed runs measure compiled code, not the JIT.
  const warm = freshDb(dir, 'warm-up');
  const warmItems = Array.from({ length: 300 }, (_, i) => item(N + i, 0));
  const warmOut = writeRawItems(warm, warmItems, (i) => JSON.stringify(warmItems[i]), { connectorId: 'conn_bench', defaultLanguage: 'en', receivedAt: RECEIVED });
  processRawItems(warm, site, warmOut.map((o) => o.rawContentId), { now: RECEIVED });
  warm.close();

  // End to end: raw_items -> graph.
  const pdb = freshDb(dir, 'pipeline');
  const out = writeRawItems(pdb, items, (i) => JSON.stringify(items[i]), { connectorId: 'conn_bench', defaultLanguage: 'en', receivedAt: RECEIVED });
  const pipeline = timed(() => processRawItems(pdb, site, out.map((o) => o.rawContentId), { now: RECEIVED }));
  const result = pipeline.value;
  const rows = Object.fromEntries(TABLES.map((t) => [t, pdb.prepare(`SELECT * FROM ${t}`).raw().all()]));
  const ftsColumns = pdb.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('search_fts');
  const ftsRows = pdb.prepare(`SELECT rowid, ${ftsColumns.join(', ')} FROM search_fts`).raw().all();
  const counts = Object.fromEntries(TABLES.map((t) => [t, rows[t].length]));
  pdb.close();

  // The raw baseline: the same rows by plain prepared statements in one transaction.
  const bdb = freshDb(dir, 'baseline');
  bdb.pragma('cache_size = -65536');
  const inserts = TABLES.map((t) => [bdb.prepare(`INSERT INTO ${t} VALUES (${rows[t][0].map(() => '?').join(', ')})`), rows[t]]);
  inserts.push([bdb.prepare(`INSERT INTO search_fts (rowid, ${ftsColumns.join(', ')}) VALUES (?, ${ftsColumns.map(() => '?').join(', ')})`), ftsRows]);
  const baseline = timed(() => bdb.transaction(() => { for (const [stmt, list] of inserts) for (const row of list) stmt.run(row); })());
  bdb.close();

  // Extraction alone, and the store alone on the extracted items.
  const extraction = timed(() => items.map((it) => extractItem(it, site, { receivedAt: RECEIVED })));
  const updated = items.map((_, i) => extractItem(item(i, 1), site, { receivedAt: RECEIVED }));
  const sdb = freshDb(dir, 'store');
  const apply = (list) => () => {
    for (let i = 0; i < list.length; i += 250) {
      sdb.transaction(() => {
        const search = emptySearchTouched();
        applyContributions(sdb, site, list.slice(i, i + 250), search);
        refreshSearchDocs(sdb, search);
      }).immediate();
    }
  };
  const store = timed(apply(extraction.value));
  const reingest = timed(apply(updated));
  sdb.close();

  const fmt = (t) => ({ ...rates(t), wall_ms: Math.round(t.wallMs), cpu_ms: Math.round(t.cpuMs) });
  const ratio = +(baseline.wallMs / pipeline.wallMs).toFixed(2);
  const cpuRatio = +(baseline.cpuMs / pipeline.cpuMs).toFixed(2);
  console.log(JSON.stringify({
    machine: `${cpus().length} cores, ${cpus()[0]?.model ?? 'cpu'}, load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`,
    node: process.version,
    items: N,
    pipeline_end_to_end: fmt(pipeline),
    raw_baseline_same_rows: { ...fmt(baseline), rows_per_item: +((Object.values(counts).reduce((a, b) => a + b, 0) + ftsRows.length) / N).toFixed(1) },
    ratio_pipeline_vs_baseline: ratio,
    cpu_ratio_pipeline_vs_baseline: cpuRatio,
    extraction_alone: fmt(extraction),
    store_alone: fmt(store),
    store_reingest: fmt(reingest),
    targets: { pipeline_ge_3000: rate(pipeline.wallMs) >= 3000, ratio_ge_0_5: ratio >= 0.5 },
    processed: result.processed, failed: result.failed, records: counts,
  }, null, 2));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
