#!/usr/bin/env node
// What graph migration 0010 costs a publish: the compiler's read of a language's facts
// (SqliteGraphReader.facts, every candidate in survivor order) through fact_candidates' language
// index on the language alone, which SQLite follows with a sort, against the same graph with the
// wide index of migrations 0008 and 0009 (language, fact id, rank, item key, ordinal), read
// presorted. One graph of N bench pages is built once and copied; the copy gets the wide index.
// The two reads alternate --reps times (default 5) in this one run; the fastest of each is
// reported, with their ratio. What the wide index cost ingest is bench/graph.mjs's to measure.
// Usage: npm run build && node bench/fact-read.mjs [--items N] [--reps R]
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildGraphFromItems } from '../dist/ingest/graph/build-from-items.js';
import { SqliteGraphReader } from '../dist/ingest/graph/reader.js';
import { GRAPH_DB_OPTIONS } from '../dist/ingest/graph/schema.js';
import { openDatabase } from '../dist/platform/storage/sqlite.js';
import { kettlePage } from './lib/kettle-pages.mjs';

const flag = (name, fallback) =>
  process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : fallback;
const N = flag('--items', 10_000);
const REPS = flag('--reps', 5);
const DOMAIN = 'shop.example';
const site = {
  websiteId: 'web_BENCH',
  domain: DOMAIN,
  brand: 'Acme',
  defaultLanguage: 'en',
  plan: 'pro',
  verification: { method: 'dns_txt', state: 'verified' },
  aliases: [],
};
const WIDE_INDEX =
  'DROP INDEX fact_candidates_by_language; CREATE INDEX fact_candidates_by_language ON fact_candidates(language, fact_id, rank, item_key, ordinal)';

const dir = mkdtempSync(join(tmpdir(), 'nodectl-bench-fact-read-'));
try {
  const narrowFile = join(dir, 'narrow.sqlite');
  const wideFile = join(dir, 'wide.sqlite');
  const items = Array.from({ length: N }, (_, i) => ({
    ...kettlePage(i, DOMAIN),
    checksum: 'sha256:' + i.toString(16).padStart(64, '0'),
  }));
  const built = buildGraphFromItems(items, site, { file: narrowFile, receivedAt: '2026-02-01T12:00:00.000Z' });
  built.db.pragma('wal_checkpoint(TRUNCATE)');
  built.close();
  copyFileSync(narrowFile, wideFile);
  const wide = openDatabase(wideFile, GRAPH_DB_OPTIONS);
  wide.exec(WIDE_INDEX);
  wide.close();
  const graphs = [
    ['language_index', narrowFile],
    ['wide_index', wideFile],
  ].map(([label, file]) => ({ label, file, runs: [] }));
  let candidates = 0;
  for (let rep = 0; rep < REPS; rep++) {
    for (const graph of graphs) {
      // A connection of its own per read, opened as each publish's compiling thread opens one
      // (src/compiler/website.ts: SQLite's default page cache).
      const db = openDatabase(graph.file, GRAPH_DB_OPTIONS);
      const start = performance.now();
      let n = 0;
      for (const fact of new SqliteGraphReader(db).facts('en')) if (fact.id) n++;
      graph.runs.push(performance.now() - start);
      db.close();
      candidates = n;
    }
  }
  const fastest = Object.fromEntries(graphs.map((g) => [g.label, Math.round(Math.min(...g.runs))]));
  console.log(
    JSON.stringify(
      {
        machine: `${cpus().length} cores, ${cpus()[0]?.model ?? 'cpu'}, load ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}`,
        node: process.version,
        items: N,
        reps: REPS,
        fact_candidates: candidates,
        read_ms: fastest,
        all_ms: Object.fromEntries(graphs.map((g) => [g.label, g.runs.map(Math.round)])),
        ratio_language_index_vs_wide: +(fastest.language_index / fastest.wide_index).toFixed(2),
      },
      null,
      2,
    ),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
