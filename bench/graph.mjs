#!/usr/bin/env node
// Graph store write throughput (docs/graph.md "Throughput"). N generated product and post pages
// are written to raw_items, then turned into the graph end to end (parse, extract, merge, search
// index) as the content.ingest job does it: processRawItemsConcurrently, extraction in worker
// threads while the graph writer thread writes, and, for comparison, processRawItems with everything in this
// thread. The raw baseline: the same rows (every table the pipeline wrote, search index
// included) inserted into a fresh graph file by plain prepared statements, one row per
// statement, in one transaction. The three alternate --reps times (default 3) in this one run
// and the fastest of each is reported, so a burst of load on a shared machine does not decide a
// ratio. Also reported: extraction alone, the store alone (applyContributions on extracted
// items, batches of 250) and a re-ingestion of every item with a changed price. Wall clock rates,
// and CPU rates (the process's CPU time, every thread). Usage:
//   npm run build && node bench/graph.mjs [--items N] [--reps R]
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { extractItem } from '../dist/ingest/extract/index.js';
import { applyContributions } from '../dist/ingest/graph/apply-contribution.js';
import { createExtractionPool } from '../dist/ingest/graph/extraction-pool.js';
import { createGraphWriter } from '../dist/ingest/graph/graph-writer.js';
import { processRawItems, processRawItemsConcurrently } from '../dist/ingest/graph/process-raw-items.js';
import { GRAPH_DB_OPTIONS } from '../dist/ingest/graph/schema.js';
import { writeRawItems } from '../dist/ingest/graph/raw-items.js';
import {
  emptySearchTouched,
  ftsRowidSql,
  readSearchDocuments,
  refreshSearchDocs,
} from '../dist/ingest/graph/search-docs.js';
import { openDatabase } from '../dist/platform/storage/sqlite.js';

const flag = (name, fallback) =>
  process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : fallback;
const N = flag('--items', 5000);
const REPS = flag('--reps', 3);
const site = {
  websiteId: 'web_BENCH',
  domain: 'shop.example',
  brand: 'Acme',
  defaultLanguage: 'en',
  plan: 'pro',
  verification: { method: 'dns_txt', state: 'verified' },
  aliases: [],
};
const RECEIVED = '2026-02-01T12:00:00.000Z';
const AUTHORS = ['Jane Doe', 'John Roe', 'Ann Poe', 'Max Moe'];
/** Every table the graph writers fill (raw_items and editorial aside). */
const TABLES = [
  'item_contributions',
  'sources',
  'entity_contributors',
  'entities',
  'fact_candidates',
  'relationship_contributors',
  'relationships',
  'chunks',
  'qa',
  'qa_facts',
];

function item(i, version) {
  const name = `Steel kettle model ${i}`;
  const ld = {
    '@context': 'https://schema.org',
    '@type': i % 3 === 0 ? 'BlogPosting' : 'Product',
    name,
    headline: name,
    sku: `SKU-${i}`,
    author: { '@type': 'Person', name: AUTHORS[i % AUTHORS.length] },
    brand: { '@type': 'Brand', name: 'Acme' },
    offers: {
      '@type': 'Offer',
      price: (10 + (i % 90) + version / 10).toFixed(2),
      priceCurrency: 'EUR',
      availability: 'https://schema.org/InStock',
    },
  };
  const paragraphs = Array.from(
    { length: 12 },
    (_, p) =>
      `<p>Paragraph ${p} of ${name}: the kettle boils water quickly and keeps it warm for a long evening in the kitchen, made of brushed steel.</p>`,
  ).join('');
  const html = `<html lang="en"><head><title>${name}</title><meta name="description" content="${name}, version ${version}."><meta property="og:title" content="${name}">
    <script type="application/ld+json">${JSON.stringify(ld)}</script></head><body><main><h1>${name}</h1><h2>Details</h2>${paragraphs}</main></body></html>`;
  return {
    type: i % 3 === 0 ? 'post' : 'product',
    id: String(i),
    url: `https://shop.example/p/${i}`,
    html,
    checksum: 'sha256:' + (i * 7 + version).toString(16).padStart(64, '0'),
  };
}

let files = 0;
const dir = mkdtempSync(join(tmpdir(), 'nodectl-bench-graph-'));
const freshDb = () => openDatabase(join(dir, `g${files++}.sqlite`), GRAPH_DB_OPTIONS);

/** Runs fn (awaited); returns its wall and CPU milliseconds (CPU of every thread of the process). */
async function timed(fn) {
  const cpu = process.cpuUsage();
  const start = performance.now();
  const value = await fn();
  const wallMs = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { value, wallMs, cpuMs: (used.user + used.system) / 1000 };
}

const fastest = (runs) => runs.reduce((a, b) => (b.wallMs < a.wallMs ? b : a));
const rate = (ms) => Math.round((N / ms) * 1000);
const fmt = (t) => ({
  items_per_s: rate(t.wallMs),
  cpu_items_per_s: rate(t.cpuMs),
  wall_ms: Math.round(t.wallMs),
  cpu_ms: Math.round(t.cpuMs),
});

/** A fresh graph file holding the items as pending raw_items. */
function pendingGraph(items) {
  const db = freshDb();
  const out = writeRawItems(db, items, (i) => JSON.stringify(items[i]), {
    connectorId: 'conn_bench',
    defaultLanguage: 'en',
    receivedAt: RECEIVED,
  });
  return { db, ids: out.map((o) => o.rawContentId) };
}

/** The rows a pipeline run wrote, and the baseline that inserts them into a fresh file by plain statements. */
function baselineOf(db) {
  const rows = TABLES.map((t) => [t, db.prepare(`SELECT * FROM ${t}`).raw().all()]);
  // The search index is contentless: its text comes from the records, as the writers index it
  // (a document per chunk, entity and surviving fact candidate, its rowid the record's plus a base).
  const rowids = db
    .prepare(
      `SELECT ${ftsRowidSql('chunk', 'c')} FROM chunks c UNION ALL SELECT ${ftsRowidSql('fact', 'f')} FROM fact_candidates f WHERE f.status = 'active'
    UNION ALL SELECT ${ftsRowidSql('entity', 'e')} FROM entities e`,
    )
    .pluck()
    .all();
  const documents = readSearchDocuments(db, rowids);
  const ftsColumns = Object.keys(documents[0]);
  rows.push(['search_fts', documents.map((d) => ftsColumns.map((c) => d[c])), `(${ftsColumns.join(', ')})`]);
  return {
    rowsPerItem: +(rows.reduce((n, [, list]) => n + list.length, 0) / N).toFixed(1),
    counts: Object.fromEntries(rows.map(([t, list]) => [t, list.length])),
    run: () => {
      const bdb = freshDb();
      bdb.pragma('cache_size = -65536');
      const inserts = rows.map(([t, list, columns]) => [
        bdb.prepare(`INSERT INTO ${t} ${columns ?? ''} VALUES (${list[0].map(() => '?').join(', ')})`),
        list,
      ]);
      return timed(() =>
        bdb.transaction(() => {
          for (const [stmt, list] of inserts) for (const row of list) stmt.run(row);
        })(),
      ).finally(() => bdb.close());
    },
  };
}

try {
  const items = Array.from({ length: N }, (_, i) => item(i, 0));
  const pool = createExtractionPool({ size: Math.max(1, Math.min(4, availableParallelism() - 1)) });
  const writer = createGraphWriter();
  // Warm-up on other ids, so the timed runs measure compiled code, not the JIT: this thread's,
  // the extraction worker's and the writer thread's.
  const warmItems = Array.from({ length: 500 }, (_, i) => item(N + i, 0));
  const warm = pendingGraph(warmItems);
  processRawItems(warm.db, site, warm.ids, { now: RECEIVED });
  warm.db.close();
  const warmWorker = pendingGraph(warmItems);
  await processRawItemsConcurrently(warmWorker.db, site, warmWorker.ids, { now: RECEIVED, pool, writer });
  warmWorker.db.close();

  const concurrent = [],
    single = [],
    baseline = [];
  let result, base;
  for (let rep = 0; rep < REPS; rep++) {
    const a = pendingGraph(items);
    concurrent.push(await timed(() => processRawItemsConcurrently(a.db, site, a.ids, { now: RECEIVED, pool, writer })));
    result = concurrent.at(-1).value;
    base ??= baselineOf(a.db);
    a.db.close();
    const b = pendingGraph(items);
    single.push(await timed(() => processRawItems(b.db, site, b.ids, { now: RECEIVED })));
    b.db.close();
    baseline.push(await base.run());
  }
  await pool.close();
  await writer.close();

  // Extraction alone, and the store alone on the extracted items.
  const extraction = await timed(() => items.map((it) => extractItem(it, site, { receivedAt: RECEIVED })));
  const updated = items.map((_, i) => extractItem(item(i, 1), site, { receivedAt: RECEIVED }));
  const sdb = freshDb();
  const apply = (list) => () => {
    for (let i = 0; i < list.length; i += 250) {
      sdb
        .transaction(() => {
          const search = emptySearchTouched();
          applyContributions(sdb, site, list.slice(i, i + 250), search);
          refreshSearchDocs(sdb, search);
        })
        .immediate();
    }
  };
  const store = await timed(apply(extraction.value));
  const reingest = await timed(apply(updated));
  sdb.close();

  const [p, s, b] = [fastest(concurrent), fastest(single), fastest(baseline)];
  console.log(
    JSON.stringify(
      {
        machine: `${cpus().length} cores, ${cpus()[0]?.model ?? 'cpu'}, load ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}`,
        node: process.version,
        items: N,
        reps: REPS,
        pipeline_end_to_end: {
          ...fmt(p),
          extraction_workers: pool.size,
          all_wall_ms: concurrent.map((t) => Math.round(t.wallMs)),
        },
        pipeline_one_thread: { ...fmt(s), all_wall_ms: single.map((t) => Math.round(t.wallMs)) },
        raw_baseline_same_rows: {
          ...fmt(b),
          rows_per_item: base.rowsPerItem,
          all_wall_ms: baseline.map((t) => Math.round(t.wallMs)),
        },
        ratio_pipeline_vs_baseline: +(b.wallMs / p.wallMs).toFixed(2),
        ratio_one_thread_vs_baseline: +(b.wallMs / s.wallMs).toFixed(2),
        cpu_ratio_one_thread_vs_baseline: +(b.cpuMs / s.cpuMs).toFixed(2),
        extraction_alone: fmt(extraction),
        store_alone: fmt(store),
        store_reingest: fmt(reingest),
        targets: { pipeline_ge_3000: rate(p.wallMs) >= 3000, ratio_ge_0_5: b.wallMs / p.wallMs >= 0.5 },
        processed: result.processed,
        failed: result.failed,
        records: base.counts,
      },
      null,
      2,
    ),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
