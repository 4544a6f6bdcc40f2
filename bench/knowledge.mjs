#!/usr/bin/env node
// Knowledge search (docs/knowledge.md): what the FTS5 index adds to building a graph, and how
// fast it answers. N generated product and post pages with Zipf-distributed words from a
// 4,000-word vocabulary (a site's text is not one repeated sentence).
//  1. Build cost (with --baseline <dir>: the dist/ of the same code with refreshSearchDocs a no-op,
//     or of a build without the index): the first min(N, 5000) items go through the
//     content.ingest path (raw_items, then processRawItems: extraction and the store) with this
//     build and with the baseline, --rounds times alternating; medians of wall and CPU time. In
//     the baseline's graph the index's triggers and indexes (every trigger and index named
//     search_*, graph migration 0006) are dropped, so their work in the store's statements
//     counts as the index's. Also reported: the share from the fastest round of each (load on a
//     shared machine only adds time), and the median of each round's own ratio. Make the baseline with
//       cp -r dist /tmp/base && sed -i 's/^export function refreshSearchDocs(db, touched) {$/&\n    return;/' /tmp/base/graph/search-docs.js
//     and run it from a directory whose node_modules and package.json resolve like the project's
//     (a copy inside the project, or symlinks).
//  2. Speed: all N items are stored into one indexed graph, 500 items a transaction as
//     content.ingest writes them; the time in refreshSearchDocs is measured apart from the store's
//     in the same run (the index's share without a second build; the index's triggers and its
//     subject index work inside the store's statements and count as the store's here). Then one- and two-term queries
//     run through searchKnowledge (limit 20, snippets and titles included), and the same first
//     word through a plain LIKE scan of entity names, fact values and chunk text (limit 20), in
//     the same run. p50/p99 per class. Query words are picked from the vocabulary by rank and,
//     for the classes that need a word that occurs, by the documents they are in (the generator
//     leaves many vocabulary words out).
// Usage: npm run build && node bench/knowledge.mjs [--items N] [--queries Q] [--baseline DIR] [--rounds R]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { extractItem } from '../dist/ingest/extract/index.js';
import { applyContributions } from '../dist/ingest/graph/apply-contribution.js';
import { GRAPH_DB_OPTIONS } from '../dist/ingest/graph/schema.js';
import { emptySearchTouched, refreshSearchDocs, ROWID_RANGE } from '../dist/ingest/graph/search-docs.js';
import { searchKnowledge } from '../dist/output/knowledge/search.js';
import { openDatabase } from '../dist/platform/storage/sqlite.js';
import { createItemGenerator, VOCAB } from './lib/zipf-items.mjs';
import { upperMedian } from './lib/stats.mjs';

const flag = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const N = flag('--items', 100_000);
const QUERIES = flag('--queries', 400);
const ROUNDS = flag('--rounds', 3);
const baselineAt = process.argv.indexOf('--baseline');
const BASELINE = baselineAt > 0 ? resolve(process.argv[baselineAt + 1]) : undefined;
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
/** Items a content.ingest write transaction takes (src/ingest/graph/process-raw-items.ts). */
const BATCH = 500;

let gen = createItemGenerator(42);
const item = (i) => gen.item(i);
const random = () => gen.random();

const fastest = (xs) => Math.min(...xs);
const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
};
const round = (x, d = 2) => Math.round(x * 10 ** d) / 10 ** d;
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** processRawItems over `count` items written to raw_items, with each build's own modules; medians of ROUNDS alternating runs. */
async function measureBuildCost(count) {
  const load = async (dist) => ({
    openDatabase: (await import(pathToFileURL(join(dist, 'platform/storage/sqlite.js')).href)).openDatabase,
    GRAPH_DB_OPTIONS: (await import(pathToFileURL(join(dist, 'ingest/graph/schema.js')).href)).GRAPH_DB_OPTIONS,
    writeRawItems: (await import(pathToFileURL(join(dist, 'ingest/graph/raw-items.js')).href)).writeRawItems,
    processRawItems: (await import(pathToFileURL(join(dist, 'ingest/graph/process-raw-items.js')).href))
      .processRawItems,
  });
  const builds = { without_index: await load(BASELINE), with_index: await load(resolve('dist')) };
  gen = createItemGenerator(42);
  const items = Array.from({ length: count }, (_, i) => item(i));
  const runs = { without_index: [], with_index: [] };
  for (let run = 0; run < ROUNDS; run++) {
    for (const [name, b] of Object.entries(builds)) {
      const file = join(dir, `${name}-${run}.sqlite`);
      const db = b.openDatabase(file, b.GRAPH_DB_OPTIONS);
      if (name === 'without_index') {
        for (const { type, name: object } of db
          .prepare(
            `SELECT type, name FROM sqlite_master WHERE type IN ('trigger', 'index') AND name LIKE 'search\\_%' ESCAPE '\\'`,
          )
          .all())
          db.exec(`DROP ${type.toUpperCase()} ${object}`);
      }
      const out = b.writeRawItems(db, items, (i) => JSON.stringify(items[i]), {
        connectorId: 'conn_bench',
        defaultLanguage: 'en',
        receivedAt: RECEIVED,
      });
      const cpu = cpuMs();
      const start = performance.now();
      const result = b.processRawItems(
        db,
        site,
        out.map((o) => o.rawContentId),
        { now: RECEIVED },
      );
      const wall = performance.now() - start;
      const used = cpuMs() - cpu;
      if (result.failed > 0) throw new Error(`${name}: ${result.failed} items failed`);
      runs[name].push({ wall, cpu: used });
      db.close();
      rmSync(file, { force: true });
    }
  }
  const summary = (name, key, of = upperMedian) => round(of(runs[name].map((r) => r[key])), 0);
  const paired = (key) => round(upperMedian(runs.with_index.map((r, i) => r[key] / runs.without_index[i][key])) - 1, 3);
  const share = (key, of) => round(summary('with_index', key, of) / summary('without_index', key, of) - 1, 3);
  return {
    items: count,
    rounds: ROUNDS,
    wall_ms: { without_index: summary('without_index', 'wall'), with_index: summary('with_index', 'wall') },
    cpu_ms: { without_index: summary('without_index', 'cpu'), with_index: summary('with_index', 'cpu') },
    added_share_wall: share('wall', upperMedian),
    added_share_cpu: share('cpu', upperMedian),
    // Load on a shared machine only ever adds time: the fastest round of each build is the
    // estimate least disturbed by it.
    added_share_wall_fastest: share('wall', fastest),
    added_share_cpu_fastest: share('cpu', fastest),
    // Each round's two builds ran back to back on the same machine state: the median of the
    // rounds' own ratios drifts least with the machine's speed.
    added_share_wall_paired: paired('wall'),
    added_share_cpu_paired: paired('cpu'),
  };
}

/** Stores contributions as content.ingest does (a transaction per BATCH items, the index refreshed before each commit); CPU ms of each part. */
function store(db, contributions, spent) {
  for (let i = 0; i < contributions.length; i += BATCH) {
    db.transaction(() => {
      const touched = emptySearchTouched();
      let t = cpuMs();
      applyContributions(db, site, contributions.slice(i, i + BATCH), touched);
      spent.store += cpuMs() - t;
      t = cpuMs();
      refreshSearchDocs(db, touched);
      spent.index += cpuMs() - t;
    })();
  }
}

const dir = mkdtempSync(join(tmpdir(), 'nodectl-bench-knowledge-'));
try {
  // 1. Build cost of the index: the content.ingest path, this build against the baseline's.
  const buildCost = BASELINE
    ? await measureBuildCost(Math.min(N, 5000))
    : 'pass --baseline <dist of the same code without the index>';
  console.error(JSON.stringify({ build_cost: buildCost }));
  gen = createItemGenerator(42);

  // 2. One indexed graph of N items, extracted and stored a batch at a time.
  const db = openDatabase(join(dir, 'search.sqlite'), GRAPH_DB_OPTIONS);
  const spent = { extract: 0, store: 0, index: 0 };
  for (let start = 0; start < N; start += BATCH * 2) {
    const t = cpuMs();
    const batch = [];
    for (let i = start; i < Math.min(N, start + BATCH * 2); i++)
      batch.push(extractItem(item(i), site, { receivedAt: RECEIVED }));
    spent.extract += cpuMs() - t;
    store(db, batch, spent);
  }
  // Documents per kind: FTS5's docsize table has a row per document, each kind in its rowid range.
  const docs = Object.fromEntries(
    Object.entries(ROWID_RANGE).map(([kind, r]) => [
      kind,
      db.prepare('SELECT COUNT(*) FROM search_fts_docsize WHERE id BETWEEN ? AND ?').pluck().get(r.first, r.last),
    ]),
  );
  const indexBytes = (() => {
    try {
      return db.prepare(`SELECT SUM(pgsize) FROM dbstat WHERE name LIKE 'search%'`).pluck().get();
    } catch {
      return null;
    }
  })();
  const fileBytes = db.pragma('page_count', { simple: true }) * db.pragma('page_size', { simple: true });

  // Documents per vocabulary word (counted up to 20,001), to pick words that occur.
  const counter = db
    .prepare(`SELECT count(*) FROM (SELECT 1 FROM search_fts WHERE search_fts MATCH ? LIMIT 20001)`)
    .pluck();
  const occurring = VOCAB.map((word) => ({ word, docs: counter.get(`"${word}"`) }));
  const rare = occurring.filter((w) => w.docs >= 2 && w.docs <= 1000).map((w) => w.word);
  // Ranked with the most work: just under COMMON_DOCUMENTS (src/output/knowledge/search.ts).
  const busiest = occurring.filter((w) => w.docs >= 5000 && w.docs <= 10000).map((w) => w.word);

  const like = db.prepare(`SELECT * FROM (
      SELECT 'entity' AS kind, id FROM entities WHERE name LIKE @p
      UNION ALL SELECT 'fact', fact_id FROM fact_candidates WHERE status = 'active' AND (value LIKE @p OR display LIKE @p)
      UNION ALL SELECT 'chunk', id FROM chunks WHERE text LIKE @p
    ) LIMIT 20`);
  const pick = (from, to) => VOCAB[from + Math.floor(random() * (to - from))];
  // A small --items may leave a list empty: a mid word stands in.
  const pickFrom = (words) => (words.length > 0 ? words[Math.floor(random() * words.length)] : pick(100, 1000));
  const pickRare = () => pickFrom(rare);
  const pickBusiest = () => pickFrom(busiest);
  const search = (query, extra = {}) => searchKnowledge(db, { query, limit: 20, ...extra });
  /** Each class: the query text and how it runs (a second page runs the first one untimed). */
  const classes = {
    'one common word': () => ({ query: pick(0, 20) }),
    'one mid word': () => ({ query: pick(100, 1000) }),
    'one rare word': () => ({ query: pick(2000, 4000) }),
    'two words': () => ({ query: `${pick(0, 300)} ${pick(0, 300)}` }),
    'prefix of a mid word': () => ({ query: pick(100, 1000).slice(0, 4) }),
    'three-letter prefix': () => ({ query: pick(100, 1000).slice(0, 3) }),
    'word in 2 to 1,000 documents': () => ({ query: pickRare() }),
    'word in 5,000 to 10,000 documents': () => ({ query: `${pickBusiest()} ` }),
    'common word and a rare one': () => ({ query: `${pick(0, 20)} ${pickRare()}` }),
    'common word, facts only, page 2': () => {
      const query = pick(0, 20);
      const first = search(query, { kind: 'fact' });
      return { query, extra: { kind: 'fact', after: first[first.length - 1]?.position } };
    },
  };
  const perClass = Math.max(1, Math.round(QUERIES / Object.keys(classes).length));
  const results = {};
  const all = { fts: [], like: [] };
  for (const [name, make] of Object.entries(classes)) {
    const fts = [],
      scan = [],
      hits = [];
    for (let q = 0; q < perClass; q++) {
      const { query, extra } = make();
      let t = performance.now();
      hits.push(search(query, extra).length);
      fts.push(performance.now() - t);
      t = performance.now();
      like.all({ p: `%${query.split(' ')[0]}%` });
      scan.push(performance.now() - t);
    }
    all.fts.push(...fts);
    all.like.push(...scan);
    results[name] = {
      fts_p50_ms: round(upperMedian(fts)),
      fts_p99_ms: round(quantile(fts, 0.99)),
      like_p50_ms: round(upperMedian(scan)),
      like_p99_ms: round(quantile(scan, 0.99)),
      median_hits: upperMedian(hits),
    };
  }
  db.close();
  console.log(
    JSON.stringify(
      {
        items: N,
        build_cost: buildCost,
        graph: {
          cpu_ms: { extract: round(spent.extract, 0), store: round(spent.store, 0), index: round(spent.index, 0) },
          index_share_of_store: round(spent.index / spent.store, 3),
          index_share_of_extract_and_store: round(spent.index / (spent.extract + spent.store), 3),
          docs,
          index_bytes: indexBytes,
          file_bytes: fileBytes,
        },
        vocabulary: {
          words_in_no_document: occurring.filter((w) => w.docs === 0).length,
          words_in_2_to_1000: rare.length,
          words_in_5000_to_10000: busiest.length,
          words_in_over_20000: occurring.filter((w) => w.docs > 20000).length,
        },
        search: {
          all: {
            fts_p50_ms: round(upperMedian(all.fts)),
            fts_p99_ms: round(quantile(all.fts, 0.99)),
            like_p50_ms: round(upperMedian(all.like)),
            like_p99_ms: round(quantile(all.like, 0.99)),
          },
          ...results,
        },
      },
      null,
      2,
    ),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
