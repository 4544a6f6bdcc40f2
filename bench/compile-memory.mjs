// The memory of a website's publish as it grows with the site (issue 40 item 1): a generated site
// (bench/lib/site-pages.mjs, the pages bench/scale.mjs pushes) built into a graph file once, then
// published by runPublish (the daemon's publish, in its worker: compile from the graph file with
// the check of the files as written, gates, upload into an fs store) in a child process of its
// own per build and size, so each peak RSS is its own. The child reads process.memoryUsage() at
// every compile progress report (each pass, each file, every 1,000 rows) and at each publish step.
// Run: npm run build && node bench/compile-memory.mjs --sizes 10000,100000 [--roots <a>,<b>] [--rounds 2]
//   --roots: repository folders whose dist/ is measured, alternating (an A/B of two builds; default this one)
//   --republish: publish a second build of the same graph against the first (compile against a live version)
//   --in-worker: each publish through runPublishInWorker with a spare worker kept, as the daemon
//     publishes; the process's RSS is sampled every 100 ms per publish, and 3 s after each
//   BENCH_GRAPHS=<dir> keeps the graph files there and reuses them.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { seedControlRows } from './lib/seed-site.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '..');
const WEBSITE = 'web_01JBENCHCOMPILEMEMORY00000';
const DOMAIN = 'bench.example';
const BATCH = 1000;

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '10000' },
    roots: { type: 'string', default: ROOT },
    rounds: { type: 'string', default: '1' },
    republish: { type: 'boolean', default: false },
    'in-worker': { type: 'boolean', default: false },
    child: { type: 'string' },
  },
});

/** The control database of a bench data directory: one organization and its verified website. */
async function createDataDir(root, dataDir) {
  const { dataDirLayout, openControlDb } = await import(join(root, 'dist/platform/storage/index.js'));
  mkdirSync(dataDir, { recursive: true });
  const db = openControlDb(dataDirLayout(dataDir));
  seedControlRows(db, WEBSITE, DOMAIN);
  return db;
}

/** The graph of `n` generated pages, written through the daemon's ingest path a batch at a time. */
async function buildGraph(n, dir) {
  const file = join(dir, `site-${n}.sqlite`);
  if (existsSync(file)) return file;
  const { sitePage } = await import('./lib/site-pages.mjs');
  const { computeItemChecksum } = await import(join(ROOT, 'dist/sdk/client/index.js'));
  const { writeRawItems } = await import(join(ROOT, 'dist/ingest/graph/raw-items.js'));
  const { processRawItems } = await import(join(ROOT, 'dist/ingest/graph/process-raw-items.js'));
  const { GRAPH_DB_OPTIONS } = await import(join(ROOT, 'dist/ingest/graph/schema.js'));
  const { openDatabase } = await import(join(ROOT, 'dist/platform/storage/index.js'));
  const { loadWebsiteInfo } = await import(join(ROOT, 'dist/control/records/index.js'));
  const { IngestItemSchema } = await import(join(ROOT, 'dist/platform/contract/index.js'));
  const work = mkdtempSync(join(tmpdir(), 'nodectl-bench-graph-'));
  const control = await createDataDir(ROOT, join(work, 'data'));
  const site = loadWebsiteInfo(control, WEBSITE);
  control.close();
  const started = performance.now();
  const db = openDatabase(`${file}.part`, GRAPH_DB_OPTIONS);
  try {
    for (let b = 0; b < n; b += BATCH) {
      const items = [];
      for (let i = b; i < Math.min(n, b + BATCH); i++) {
        const page = sitePage(i, DOMAIN);
        items.push(IngestItemSchema.parse({ ...page, checksum: computeItemChecksum(page) }));
      }
      const receivedAt = '2026-03-01T00:00:00Z';
      const outcomes = writeRawItems(db, items, (i) => JSON.stringify(items[i]), {
        connectorId: 'bench',
        defaultLanguage: site.defaultLanguage,
        receivedAt,
      });
      const ids = outcomes.flatMap((o) => (o.status === 'accepted' ? [o.rawContentId] : []));
      processRawItems(db, site, ids, { mappings: [], now: receivedAt });
      if ((b / BATCH) % 10 === 9) console.error(`  graph ${n}: ${b + BATCH} pages`);
    }
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
  execFileSync('mv', [`${file}.part`, file]);
  rmSync(work, { recursive: true, force: true });
  console.error(`graph of ${n} pages: ${((performance.now() - started) / 1000).toFixed(1)} s (not timed)`);
  return file;
}

/** In the child: a scratch data directory holding a copy of `graph`, its control database and settings. */
async function childDataDir(root, graph) {
  const { resolveConfig } = await import(join(root, 'dist/platform/config/config.js'));
  const { dataDirLayout, graphDbPath } = await import(join(root, 'dist/platform/storage/index.js'));
  const work = mkdtempSync(join(tmpdir(), 'nodectl-bench-memory-'));
  const dataDir = join(work, 'data');
  const db = await createDataDir(root, dataDir);
  copyFileSync(graph, graphDbPath(dataDirLayout(dataDir), WEBSITE));
  return { work, db, settings: resolveConfig({ flags: { dataDir }, env: {} }).settings };
}

/** The build times of the child's publishes: one, or two with --republish (the second against the first). */
function buildTimes(republish) {
  return republish ? ['2026-03-01T09:00:00Z', '2026-03-01T10:00:00Z'] : ['2026-03-01T09:00:00Z'];
}

/** In the child: one publish (two with --republish) of `graph` with the build in `root`; prints its memory as JSON. */
async function child({ root, graph, republish, inWorker }) {
  if (inWorker) return childInWorker({ root, graph, republish });
  const { runPublish } = await import(join(root, 'dist/output/publish/run-publish.js'));
  const { createFsTarget } = await import(join(root, 'dist/output/publish/targets/fs.js'));
  const { work, db, settings } = await childDataDir(root, graph);
  const target = createFsTarget({ root: join(work, 'nodes') });
  const mb = (bytes) => Math.round(bytes / 1048576);
  const publishes = [];
  try {
    for (const buildTime of buildTimes(republish)) {
      const byStage = new Map();
      let stage = 'start';
      const sample = () => {
        const m = process.memoryUsage();
        const at = byStage.get(stage) ?? { rss: 0, heapUsed: 0, external: 0 };
        byStage.set(stage, {
          rss: Math.max(at.rss, m.rss),
          heapUsed: Math.max(at.heapUsed, m.heapUsed),
          external: Math.max(at.external, m.external + m.arrayBuffers),
        });
      };
      const progress = {
        compile: (p) => {
          stage = `compile: ${p.pass}`;
          sample();
        },
        step: (step) => {
          sample();
          stage = step;
          sample();
        },
        advance: sample,
        stop() {},
      };
      const rssBefore = process.memoryUsage().rss;
      const started = performance.now();
      const result = await runPublish({
        settings,
        controlDb: db,
        target,
        source: { kind: 'website', websiteId: WEBSITE },
        buildTime,
        quotaExempt: true,
        force: true,
        progress,
      });
      sample();
      publishes.push({
        seconds: Number(((performance.now() - started) / 1000).toFixed(2)),
        records: result.recordCount,
        rss_before_mb: mb(rssBefore),
        max_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
        by_stage_mb: Object.fromEntries(
          [...byStage].map(([k, v]) => [k, { rss: mb(v.rss), heap: mb(v.heapUsed), external: mb(v.external) }]),
        ),
      });
    }
  } finally {
    await target.close();
    db.close();
    rmSync(work, { recursive: true, force: true });
  }
  console.log(JSON.stringify(publishes));
}

/**
 * In the child, --in-worker: the publishes run through runPublishInWorker with a spare worker kept,
 * as the daemon runs them. The memory the publish's threads free stays the process's to return,
 * so the RSS is read from the calling thread: its peak per publish and what stays 3 s after.
 */
async function childInWorker({ root, graph, republish }) {
  const { runPublishInWorker, keepSparePublishWorker, closeSparePublishWorker } = await import(
    join(root, 'dist/output/publish/publish-in-worker.js')
  );
  const { work, db, settings } = await childDataDir(root, graph);
  const mb = () => Math.round(process.memoryUsage().rss / 1048576);
  const publishes = [];
  keepSparePublishWorker();
  try {
    for (const buildTime of buildTimes(republish)) {
      const rssBefore = mb();
      let peak = rssBefore;
      const timer = setInterval(() => (peak = Math.max(peak, mb())), 100);
      const started = performance.now();
      const result = await runPublishInWorker({
        settings,
        controlDb: db,
        source: { kind: 'website', websiteId: WEBSITE },
        buildTime,
        quotaExempt: true,
        force: true,
      });
      clearInterval(timer);
      const seconds = Number(((performance.now() - started) / 1000).toFixed(2));
      await new Promise((resolve) => setTimeout(resolve, 3000));
      publishes.push({
        seconds,
        records: result.recordCount,
        rss_before_mb: rssBefore,
        max_rss_mb: peak,
        rss_3s_after_mb: mb(),
      });
    }
  } finally {
    await closeSparePublishWorker();
    db.close();
    rmSync(work, { recursive: true, force: true });
  }
  console.log(JSON.stringify(publishes));
}

if (values.child !== undefined) {
  await child(JSON.parse(values.child));
} else {
  const sizes = values.sizes.split(',').map(Number);
  const roots = values.roots.split(',').map((r) => resolve(r));
  const graphsDir = process.env.BENCH_GRAPHS ?? mkdtempSync(join(tmpdir(), 'nodectl-bench-graphs-'));
  mkdirSync(graphsDir, { recursive: true });
  const results = [];
  try {
    for (const n of sizes) {
      const graph = await buildGraph(n, graphsDir);
      for (let round = 1; round <= Number(values.rounds); round++)
        for (const root of roots) {
          const load = loadavg()[0];
          const out = execFileSync(
            process.execPath,
            [
              fileURLToPath(import.meta.url),
              '--child',
              JSON.stringify({ root, graph, republish: values.republish, inWorker: values['in-worker'] }),
            ],
            { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 26 },
          );
          const publishes = JSON.parse(out.trim().split('\n').pop());
          const row = { size: n, round, root, load_1m_before: load, load_1m_after: loadavg()[0], publishes };
          results.push(row);
          const peaks = publishes.map((p) => `${p.max_rss_mb} MB in ${p.seconds} s`).join(', then ');
          console.error(`${n} pages, ${root}: peak RSS ${peaks} (load ${load.toFixed(1)})`);
        }
    }
  } finally {
    if (process.env.BENCH_GRAPHS === undefined) rmSync(graphsDir, { recursive: true, force: true });
  }
  console.log(
    JSON.stringify(
      { bench: 'compile-memory', node: process.version, cores: cpus().length, cpu: cpus()[0]?.model, results },
      null,
      2,
    ),
  );
}
