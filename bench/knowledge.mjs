#!/usr/bin/env node
// Knowledge search (docs/knowledge.md): what the FTS5 index adds to building a graph, and how
// fast it answers. N generated product and post pages with Zipf-distributed words from a
// 4,000-word vocabulary (a site's text is not one repeated sentence).
//  1. Build cost (with --baseline <dir>: the dist/ of a build without the index, e.g. the
//     commit before graph migration 0003): the first min(N, 5000) items go through the
//     content.ingest path (raw_items, then processRawItems: extraction and the store) with this
//     build and with the baseline, three times alternating; medians of wall and CPU time.
//  2. Speed: all N items are stored into one indexed graph; one- and two-term queries (common,
//     mid and rare words, plus a typed prefix) run through searchKnowledge (limit 20, snippets
//     and titles included), and the same words through a plain LIKE scan of entity names, fact
//     values and chunk text (limit 20), in the same run. p50/p99 per method.
// Usage: npm run build && node bench/knowledge.mjs [--items N] [--queries Q] [--baseline DIR]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { extractItem } from '../dist/extract/index.js';
import { applyContribution } from '../dist/graph/apply-contribution.js';
import { GRAPH_DB_OPTIONS } from '../dist/graph/schema.js';
import { emptySearchTouched, refreshSearchDocs } from '../dist/graph/search-docs.js';
import { searchKnowledge } from '../dist/knowledge/search.js';
import { openDatabase } from '../dist/storage/sqlite.js';
import { createItemGenerator, VOCAB } from './lib/zipf-items.mjs';

const flag = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const N = flag('--items', 100_000);
const QUERIES = flag('--queries', 400);
const baselineAt = process.argv.indexOf('--baseline');
const BASELINE = baselineAt > 0 ? resolve(process.argv[baselineAt + 1]) : undefined;
const site = { websiteId: 'web_BENCH', domain: 'shop.example', brand: 'Acme', defaultLanguage: 'en', plan: 'pro', verification: { method: 'dns_txt', state: 'verified' }, aliases: [] };
const RECEIVED = '2026-02-01T12:00:00.000Z';

let gen = createItemGenerator(42);
const item = (i) => gen.item(i);
const random = () => gen.random();

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
};
const round = (x, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

/** processRawItems over `count` items written to raw_items, with each build's own modules; medians of three alternating runs. */
async function measureBuildCost(count) {
  const load = async (dist) => ({
    openDatabase: (await import(pathToFileURL(join(dist, 'storage/sqlite.js')).href)).openDatabase,
    GRAPH_DB_OPTIONS: (await import(pathToFileURL(join(dist, 'graph/schema.js')).href)).GRAPH_DB_OPTIONS,
    writeRawItems: (await import(pathToFileURL(join(dist, 'graph/raw-items.js')).href)).writeRawItems,
    processRawItems: (await import(pathToFileURL(join(dist, 'graph/process-raw-items.js')).href)).processRawItems,
  });
  const builds = { without_index: await load(BASELINE), with_index: await load(resolve('dist')) };
  gen = createItemGenerator(42);
  const items = Array.from({ length: count }, (_, i) => item(i));
  const runs = { without_index: [], with_index: [] };
  for (let run = 0; run < 3; run++) {
    for (const [name, b] of Object.entries(builds)) {
      const db = b.openDatabase(join(dir, `${name}-${run}.sqlite`), b.GRAPH_DB_OPTIONS);
      const out = b.writeRawItems(db, items, (i) => JSON.stringify(items[i]), { connectorId: 'conn_bench', defaultLanguage: 'en', receivedAt: RECEIVED });
      const cpu = process.cpuUsage();
      const start = performance.now();
      const result = b.processRawItems(db, site, out.map((o) => o.rawContentId), { now: RECEIVED });
      const wall = performance.now() - start;
      const used = process.cpuUsage(cpu);
      if (result.failed > 0) throw new Error(`${name}: ${result.failed} items failed`);
      runs[name].push({ wall, cpu: (used.user + used.system) / 1000 });
      db.close();
    }
  }
  const summary = (name, key) => round(median(runs[name].map((r) => r[key])), 0);
  return {
    items: count,
    wall_ms: { without_index: summary('without_index', 'wall'), with_index: summary('with_index', 'wall') },
    cpu_ms: { without_index: summary('without_index', 'cpu'), with_index: summary('with_index', 'cpu') },
    added_share_wall: round(summary('with_index', 'wall') / summary('without_index', 'wall') - 1, 3),
    added_share_cpu: round(summary('with_index', 'cpu') / summary('without_index', 'cpu') - 1, 3),
  };
}

function store(db, contributions) {
  const start = performance.now();
  for (let i = 0; i < contributions.length; i += 250) {
    db.transaction(() => {
      const batch = emptySearchTouched();
      for (const c of contributions.slice(i, i + 250)) applyContribution(db, site, c, batch);
      refreshSearchDocs(db, batch);
    })();
  }
  return performance.now() - start;
}

const dir = mkdtempSync(join(tmpdir(), 'nodectl-bench-knowledge-'));
try {
  // 1. Build cost of the index: the content.ingest path, this build against the baseline's.
  const buildCost = BASELINE ? await measureBuildCost(Math.min(N, 5000)) : 'pass --baseline <dist of a build without the index>';
  gen = createItemGenerator(42);

  // 2. One indexed graph of N items, stored in batches so the contributions never sit in memory whole.
  const db = openDatabase(join(dir, 'search.sqlite'), GRAPH_DB_OPTIONS);
  let buildMs = 0;
  for (let start = 0; start < N; start += 1000) {
    const batch = [];
    for (let i = start; i < Math.min(N, start + 1000); i++) batch.push(extractItem(item(i), site, { receivedAt: RECEIVED }));
    buildMs += store(db, batch);
  }
  const docs = db.prepare('SELECT kind, COUNT(*) AS n FROM search_docs GROUP BY kind').all();
  const indexBytes = (() => {
    try { return db.prepare(`SELECT SUM(pgsize) FROM dbstat WHERE name LIKE 'search%'`).pluck().get(); } catch { return null; }
  })();
  const fileBytes = db.pragma('page_count', { simple: true }) * db.pragma('page_size', { simple: true });

  const like = db.prepare(`SELECT * FROM (
      SELECT 'entity' AS kind, id FROM entities WHERE name LIKE @p
      UNION ALL SELECT 'fact', fact_id FROM fact_candidates WHERE status = 'active' AND (value LIKE @p OR display LIKE @p)
      UNION ALL SELECT 'chunk', id FROM chunks WHERE text LIKE @p
    ) LIMIT 20`);
  const pick = (from, to) => VOCAB[from + Math.floor(random() * (to - from))];
  const classes = {
    'one common word': () => pick(0, 20),
    'one mid word': () => pick(100, 1000),
    'one rare word': () => pick(2000, 4000),
    'two words': () => `${pick(0, 300)} ${pick(0, 300)}`,
    'prefix of a mid word': () => pick(100, 1000).slice(0, 4),
  };
  const results = {};
  const all = { fts: [], like: [] };
  for (const [name, make] of Object.entries(classes)) {
    const fts = [], scan = [], hits = [];
    for (let q = 0; q < QUERIES / Object.keys(classes).length; q++) {
      const query = make();
      let t = performance.now();
      hits.push(searchKnowledge(db, { query, limit: 20 }).length);
      fts.push(performance.now() - t);
      t = performance.now();
      like.all({ p: `%${query.split(' ')[0]}%` });
      scan.push(performance.now() - t);
    }
    all.fts.push(...fts);
    all.like.push(...scan);
    results[name] = { fts_p50_ms: round(median(fts)), fts_p99_ms: round(quantile(fts, 0.99)), like_p50_ms: round(median(scan)), like_p99_ms: round(quantile(scan, 0.99)), median_hits: median(hits) };
  }
  db.close();
  console.log(JSON.stringify({
    items: N,
    build_cost: buildCost,
    graph: { store_ms: round(buildMs, 0), docs, index_bytes: indexBytes, file_bytes: fileBytes },
    search: { all: { fts_p50_ms: round(median(all.fts)), fts_p99_ms: round(quantile(all.fts, 0.99)), like_p50_ms: round(median(all.like)), like_p99_ms: round(quantile(all.like, 0.99)) }, ...results },
  }, null, 2));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
