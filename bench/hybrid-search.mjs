#!/usr/bin/env node
// Hybrid knowledge search (docs/knowledge.md "Modes", docs/performance.md): keyword (FTS5, BM25),
// vector (sign-bit scan in memory, then sqlite-vec's exact cosine over the candidates) and hybrid
// (reciprocal rank fusion of both) over one website graph, at 10,000 and then 100,000 chunks.
// Chunks are written directly (Zipf-distributed words, 60 a chunk, from bench/lib/zipf-items.mjs)
// and indexed by the graph's own code; vectors are synthetic and written directly (the provider
// is excluded, as is embedding the query): unit vectors scattered around 1,000 topic centres, a
// chunk's topic picked at random, a query's vector near one topic centre. Queries: two words of
// rank 50 to 1,000 (each in some hundreds of chunks). p50/p99 per mode, limit 10, snippets and
// titles included, all modes in the same run, so hybrid/keyword is the fair ratio on a shared
// machine; CPU time per query beside wall time (load only adds wall time). Also: the bits' first
// load (after an update or delete of vectors; inserts are appended) and the
// recall@10 of the two-pass vector search against an exact scan of every vector.
// Usage: npm run build && node bench/hybrid-search.mjs [--chunks 100000] [--dims 384] [--queries 200]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, loadavg, cpus } from 'node:os';
import { join } from 'node:path';
import { GRAPH_DB_OPTIONS } from '../dist/ingest/graph/schema.js';
import { rebuildSearchDocs, ROWID_RANGE } from '../dist/ingest/graph/search-docs.js';
import { loadVectorExtension } from '../dist/ingest/embeddings/index.js';
import { searchKnowledge } from '../dist/output/knowledge/search.js';
import { fusedSearch } from '../dist/output/knowledge/hybrid-search.js';
import { searchVectors } from '../dist/output/knowledge/vector-search.js';
import { openDatabase } from '../dist/platform/storage/sqlite.js';
import { createItemGenerator, VOCAB } from './lib/zipf-items.mjs';

const flag = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const CHUNKS = flag('--chunks', 100_000);
const DIMS = flag('--dims', 384);
const QUERIES = flag('--queries', 200);
const TOPICS = 1000;
const LIMIT = 10;
const MODEL = `bench@${DIMS}`;
const CHUNK_BASE = ROWID_RANGE.chunk.first - 1;

const gen = createItemGenerator(42);
const random = gen.random;
const gaussian = () => Math.sqrt(-2 * Math.log(random() || 1e-12)) * Math.cos(2 * Math.PI * random());
const unit = (v) => {
  const n = Math.hypot(...v) || 1;
  return Float32Array.from(v, (x) => x / n);
};
const centres = Array.from({ length: TOPICS }, () => unit(Array.from({ length: DIMS }, gaussian)));
/** A unit vector near a topic centre: the centre plus noise of about the same length. */
const near = (topic, spread) => unit(Array.from(centres[topic], (c) => c + (spread * gaussian()) / Math.sqrt(DIMS)));

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
};
const round = (x, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

const dir = mkdtempSync(join(tmpdir(), 'nodectl-bench-hybrid-'));
try {
  const db = openDatabase(join(dir, 'graph.sqlite'), GRAPH_DB_OPTIONS);
  if (!loadVectorExtension(db)) throw new Error('sqlite-vec did not load');
  const chunk = db.prepare(
    `INSERT INTO chunks (id, item_key, position, language, text, heading_path, tokens_estimate, mention_ids, source_id) VALUES (?, ?, 0, 'en', ?, '[]', 80, '[]', NULL)`,
  );
  const vector = db.prepare(
    `INSERT INTO chunk_vectors (chunk_id, text_hash, model, vector, bits) VALUES (?, zeroblob(16), '${MODEL}', ?, vec_quantize_binary(vec_f32(?)))`,
  );
  let written = 0;
  /** Adds chunks (text and vector) up to `count`, then rebuilds the keyword index as a fresh graph would have it. */
  const grow = (count) => {
    db.transaction(() => {
      for (; written < count; written++) {
        const id = `chunk_${written.toString(16).padStart(24, '0')}`;
        chunk.run(id, `page:${written}`, `${gen.words(60)}.`);
        const bytes = Buffer.from(near(Math.floor(random() * TOPICS), 1).buffer);
        vector.run(id, bytes, bytes);
      }
    })();
    rebuildSearchDocs(db);
    db.exec(`INSERT INTO search_fts (search_fts) VALUES ('optimize')`);
  };
  const queries = Array.from({ length: QUERIES }, () => ({
    text: `${VOCAB[50 + Math.floor(random() * 950)]} ${VOCAB[50 + Math.floor(random() * 950)]}`,
    vector: near(Math.floor(random() * TOPICS), 0.8),
  }));

  const measure = () => {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    searchVectors(db, MODEL, queries[0].vector, LIMIT);
    const bitsLoadMs = performance.now() - t0;
    const bitsLoadCpu = process.cpuUsage(c0);
    const modes = {
      keyword: (q) => searchKnowledge(db, { query: q.text, limit: LIMIT + 1 }),
      vector: (q) =>
        fusedSearch(db, {
          mode: 'vector',
          query: q.text,
          vector: q.vector,
          modelKey: MODEL,
          offset: 0,
          limit: LIMIT + 1,
        }),
      hybrid: (q) =>
        fusedSearch(db, {
          mode: 'hybrid',
          query: q.text,
          vector: q.vector,
          modelKey: MODEL,
          offset: 0,
          limit: LIMIT + 1,
        }),
    };
    const times = { keyword: [], vector: [], hybrid: [] };
    const cpu = { keyword: [], vector: [], hybrid: [] };
    let hits = 0;
    for (const q of queries.slice(0, 10)) for (const run of Object.values(modes)) run(q); // warm-up
    // Interleaved, so load on a shared machine weighs on every mode alike.
    for (const q of queries)
      for (const [mode, run] of Object.entries(modes)) {
        const c = process.cpuUsage();
        const t = performance.now();
        const answer = run(q);
        times[mode].push(performance.now() - t);
        const used = process.cpuUsage(c);
        cpu[mode].push((used.user + used.system) / 1000);
        if (mode === 'hybrid') hits += answer.length;
      }
    // Recall@10 of the two passes against an exact cosine scan of every vector (sqlite-vec).
    const exact = db.prepare(
      `SELECT c.rowid + 0 AS r FROM chunk_vectors v JOIN chunks c ON c.id = v.chunk_id ORDER BY vec_distance_cosine(vec_f32(v.vector), vec_f32(?)) LIMIT ${LIMIT}`,
    );
    let found = 0;
    const sample = queries.slice(0, 20);
    for (const q of sample) {
      const truth = new Set(exact.pluck().all(Buffer.from(q.vector.buffer)));
      // Search documents are keyed by chunk rowid plus the chunks' base (src/ingest/graph/search-docs.ts).
      const mine = searchVectors(db, MODEL, q.vector, LIMIT).map((h) => h.rowid);
      found += mine.filter((r) => truth.has(r - CHUNK_BASE)).length;
    }
    // Wall time, and the CPU time of this process, which load on a shared machine does not inflate.
    const summary = (mode) => ({
      p50_ms: round(quantile(times[mode], 0.5)),
      p99_ms: round(quantile(times[mode], 0.99)),
      cpu_p50_ms: round(quantile(cpu[mode], 0.5)),
      cpu_p99_ms: round(quantile(cpu[mode], 0.99)),
    });
    return {
      chunks: written,
      bits_first_load_ms: round(bitsLoadMs),
      bits_first_load_cpu_ms: round((bitsLoadCpu.user + bitsLoadCpu.system) / 1000),
      keyword: summary('keyword'),
      vector: summary('vector'),
      hybrid: summary('hybrid'),
      hybrid_over_keyword_p50: round(quantile(times.hybrid, 0.5) / quantile(times.keyword, 0.5)),
      hybrid_hits_per_query: round(hits / queries.length, 1),
      vector_recall_at_10: round(found / (sample.length * LIMIT), 3),
    };
  };

  const report = {
    dims: DIMS,
    queries: QUERIES,
    limit: LIMIT,
    cpus: cpus().length,
    load_before: loadavg().map((x) => round(x)),
  };
  grow(Math.min(10_000, CHUNKS));
  report.at_10k = measure();
  if (CHUNKS > 10_000) {
    grow(CHUNKS);
    report[`at_${CHUNKS / 1000}k`] = measure();
  }
  report.load_after = loadavg().map((x) => round(x));
  console.log(JSON.stringify(report, null, 2));
  db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
