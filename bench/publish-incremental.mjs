// A publish costs what changed (issue 40 item 2): a website's first compile-and-publish against
// its republish after 1 % of the items changed, both through runPublish (the daemon's and the
// CLI's publish of a website: compile from the graph file, gates, upload into an fs store).
// The graphs are built before the clock starts (ingest builds them as items arrive): the changed
// one is a copy of the first with the changed items ingested again, as a later push would leave
// it. Each is copied into place and synced to disk before its publish is timed. Each round
// publishes into a fresh store; the figure is the median of the rounds' ratios.
// Run: npm run build && BENCH_ITEMS=10000 BENCH_ROUNDS=3 node bench/publish-incremental.mjs
// BENCH_GRAPHS=<dir> keeps the two graph files there and reuses them (an A/B of two builds).
import {
  closeSync,
  copyFileSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildGraphFromItems } from '../dist/ingest/graph/build-from-items.js';
import { GRAPH_DB_OPTIONS } from '../dist/ingest/graph/index.js';
import { runPublish } from '../dist/output/publish/run-publish.js';
import { createFsTarget } from '../dist/output/publish/targets/fs.js';
import { resolveConfig } from '../dist/platform/config/config.js';
import { loadWebsiteInfo } from '../dist/control/records/index.js';
import { dataDirLayout, graphDbPath, openControlDb, openDatabase } from '../dist/platform/storage/index.js';
import { publishBenchItem } from './lib/publish-items.mjs';
import { seedControlRows } from './lib/seed-site.mjs';
import { upperMedian } from './lib/stats.mjs';

const ITEMS = Number(process.env.BENCH_ITEMS ?? 10_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WEBSITE = 'web_01JBENCHINCREMENTAL000000';
const DOMAIN = 'bench.example';
const work = mkdtempSync(join(tmpdir(), 'nodectl-bench-incremental-'));
const dataDir = join(work, 'data');
mkdirSync(dataDir, { recursive: true });
const layout = dataDirLayout(dataDir);
const db = openControlDb(layout);
seedControlRows(db, WEBSITE, DOMAIN);
const site = loadWebsiteInfo(db, WEBSITE);
const settings = resolveConfig({ flags: { dataDir }, env: {} }).settings;

/** The graph file `name`, built by `build(file)` unless BENCH_GRAPHS already holds it. */
function graphFile(name, build) {
  const graphs = process.env.BENCH_GRAPHS;
  const file = join(graphs ?? work, `${name}-${ITEMS}.sqlite`);
  if (graphs !== undefined && existsSync(file)) return file;
  if (graphs !== undefined) mkdirSync(graphs, { recursive: true });
  const started = performance.now();
  const partial = `${file}.partial`;
  build(partial);
  renameSync(partial, file);
  console.error(`graph ${name}: ${((performance.now() - started) / 1000).toFixed(1)} s (not timed)`);
  return file;
}

const changed = Array.from({ length: Math.round(ITEMS / 100) }, (_, k) => k * 100 + 7);
const first = graphFile('first', (file) => {
  const items = Array.from({ length: ITEMS }, (_, i) => publishBenchItem(i, 0, DOMAIN));
  buildGraphFromItems(items, site, { receivedAt: '2026-03-01T00:00:00Z', file }).close();
});
// A kept graph of an older schema is migrated once here: its copies must share its identity.
openDatabase(first, GRAPH_DB_OPTIONS).close();
const onePercent = graphFile('one-percent-again', (file) => {
  copyFileSync(first, file);
  const items = changed.map((i) => publishBenchItem(i, 1, DOMAIN));
  buildGraphFromItems(items, site, { receivedAt: '2026-03-02T00:00:00Z', file }).close();
});
const graphs = { first, onePercent };

/**
 * Puts `graph` in place as the website's graph file, on disk before the clock starts: a daemon's
 * graph was written as items arrived, long before a publish, while a copy's gigabyte of dirty
 * pages would be written back during the publish and slow its fsyncs.
 */
function placeGraph(graph) {
  const file = graphDbPath(layout, WEBSITE);
  copyFileSync(graph, file);
  const fd = openSync(file, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

async function publish(graph, target, buildTime) {
  placeGraph(graph);
  let compiled = 0;
  const progress = {
    step: (step) => {
      if (step === 'check' && compiled === 0) compiled = performance.now();
    },
    advance() {},
    compile() {},
    stop() {},
  };
  const started = performance.now();
  const result = await runPublish({
    settings,
    controlDb: db,
    target,
    source: { kind: 'website', websiteId: WEBSITE },
    buildTime,
    quotaExempt: true,
    progress,
  });
  const ended = performance.now();
  return {
    seconds: (ended - started) / 1000,
    compileSeconds: (compiled - started) / 1000,
    publishSeconds: (ended - compiled) / 1000,
    bytesUploaded: result.bytesUploaded,
    recordCount: result.recordCount,
  };
}

const rows = [];
try {
  for (let round = 1; round <= ROUNDS; round++) {
    const target = createFsTarget({ root: join(work, `nodes-${round}`) });
    const first = await publish(graphs.first, target, `2026-03-0${round}T09:00:00Z`);
    const onePercent = await publish(graphs.onePercent, target, `2026-03-0${round}T10:00:00Z`);
    // A new build of the same content: the live version stays (nothing is uploaded).
    const unchanged = await publish(graphs.onePercent, target, `2026-03-0${round}T11:00:00Z`);
    await target.close();
    rmSync(join(work, `nodes-${round}`), { recursive: true, force: true });
    rows.push({
      round,
      first,
      onePercent,
      unchanged,
      ratio: onePercent.seconds / first.seconds,
      load: loadavg()[0],
    });
    console.error(
      `round ${round}: first ${first.seconds.toFixed(2)} s (compile ${first.compileSeconds.toFixed(2)}), 1 % changed ${onePercent.seconds.toFixed(2)} s (compile ${onePercent.compileSeconds.toFixed(2)}), ratio ${(onePercent.seconds / first.seconds).toFixed(3)}, unchanged ${unchanged.seconds.toFixed(2)} s, load ${loadavg()[0].toFixed(1)}`,
    );
  }
} finally {
  db.close();
  rmSync(work, { recursive: true, force: true });
}
console.log(
  JSON.stringify(
    {
      bench: 'publish-incremental',
      items: ITEMS,
      rounds: ROUNDS,
      node: process.version,
      cores: cpus().length,
      cpu: cpus()[0]?.model,
      median_first_s: Number(upperMedian(rows.map((r) => r.first.seconds)).toFixed(3)),
      median_one_percent_s: Number(upperMedian(rows.map((r) => r.onePercent.seconds)).toFixed(3)),
      median_ratio: Number(upperMedian(rows.map((r) => r.ratio)).toFixed(3)),
      median_unchanged_s: Number(upperMedian(rows.map((r) => r.unchanged.seconds)).toFixed(3)),
      rounds_detail: rows,
    },
    null,
    2,
  ),
);
