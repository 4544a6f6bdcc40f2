#!/usr/bin/env node
// The check of a first version as it is written (docs/publishing.md "Gates"), on one graph of N
// generated product and post pages (the pages of bench/e2e.mjs) in a real data directory. Three
// variants of compileWebsite into a temp folder, as runPublish runs it, alternating --rounds times
// (default 3) in this one run:
//   compile    the compile alone, nothing checked (the floor);
//   in_thread  WrittenNodeCheck: every chunk scanned in the compiling thread, then the report;
//   parallel   ParallelWrittenNodeCheck (what runPublish uses): chunks scanned in a worker thread
//              while the compile goes on, then the report.
// Reports each variant's fastest and median wall time and median CPU time (every thread of the
// process), the check's added wall time over the compile for both (fastest rounds, and the
// median of each round's own difference), and the median time of the report alone (what is left
// of the check once the compile has written the manifest). --only <variant> runs one variant (for its peak memory:
// /usr/bin/time -v node bench/written-check.mjs --only parallel --rounds 1).
// Usage: npm run build && node bench/written-check.mjs [--items N] [--rounds R] [--only VARIANT]
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServices } from '../dist/daemon/create-services.js';
import { compileWebsite } from '../dist/compiler/website.js';
import { WrittenNodeCheck } from '../dist/compiler/validate/written-node.js';
import { ParallelWrittenNodeCheck } from '../dist/compiler/validate/written-node-thread.js';
import { resolveConfig } from '../dist/platform/config/config.js';
import { processRawItems } from '../dist/ingest/graph/process-raw-items.js';
import { writeRawItems } from '../dist/ingest/graph/raw-items.js';
import { createOrganization } from '../dist/control/records/organizations.js';
import { createUser } from '../dist/control/records/users.js';
import { createWebsite } from '../dist/control/records/websites.js';
import { loadWebsiteInfo } from '../dist/control/records/load-website.js';
import { kettlePage } from './lib/kettle-pages.mjs';
import { upperMedian } from './lib/stats.mjs';

const flag = (name, fallback) =>
  process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : fallback;
const N = flag('--items', 10_000);
const ROUNDS = flag('--rounds', 3);
const ONLY = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;
const DOMAIN = 'shop.example';
const BUILD_TIME = '2026-03-01T00:00:00Z';
const dir = mkdtempSync(join(tmpdir(), 'nodectl-bench-written-check-'));
const ms = (x) => Math.round(x);

/** bench/e2e.mjs's page, with a checksum of its own. */
const page = (i) => ({ ...kettlePage(i, DOMAIN), checksum: 'sha256:' + i.toString(16).padStart(64, '0') });

try {
  const config = resolveConfig({ flags: { dataDir: join(dir, 'data') }, env: {} });
  const services = createServices(config);
  await createUser(services.controlDb, { email: 'owner@bench.example', password: 'correct-horse-battery' });
  const org = createOrganization(services.controlDb, { name: 'Bench', ownerEmail: 'owner@bench.example', plan: 'pro' });
  const websiteId = createWebsite(services.controlDb, {
    organizationId: org.id,
    domain: DOMAIN,
    name: 'Bench',
    verifiedMethod: 'dns_txt',
  }).id;
  const site = loadWebsiteInfo(services.controlDb, websiteId);
  const graph = services.graphs.get(websiteId);
  for (let start = 0; start < N; start += 1000) {
    const items = Array.from({ length: Math.min(1000, N - start) }, (_, i) => page(start + i));
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

  let folders = 0;
  const reportMs = { in_thread: [], parallel: [] };
  const variants = {
    compile: async () => {
      await compileWebsite(config.settings.dataDir, websiteId, join(dir, `node-${folders++}`), {
        buildTime: BUILD_TIME,
      });
    },
    in_thread: async () => {
      const out = join(dir, `node-${folders++}`);
      const check = new WrittenNodeCheck(out, { recordsPassedSchemas: true });
      await compileWebsite(config.settings.dataDir, websiteId, out, {
        buildTime: BUILD_TIME,
        wrapSink: (sink) => check.sink(sink),
      });
      const t = performance.now();
      if (!(await check.report()).ok) throw new Error('the node failed its check');
      reportMs.in_thread.push(performance.now() - t);
    },
    parallel: async () => {
      const out = join(dir, `node-${folders++}`);
      const check = new ParallelWrittenNodeCheck(out, { recordsPassedSchemas: true });
      await compileWebsite(config.settings.dataDir, websiteId, out, {
        buildTime: BUILD_TIME,
        wrapSink: (sink) => check.sink(sink),
      });
      const t = performance.now();
      const report = await check.report();
      reportMs.parallel.push(performance.now() - t);
      if (!report.ok || !check.inWorker) throw new Error('the node failed its check, or was checked in this thread');
    },
  };
  if (ONLY !== undefined && !(ONLY in variants))
    throw new Error(`--only takes one of ${Object.keys(variants).join(', ')}`);
  const chosen = Object.entries(variants).filter(([name]) => ONLY === undefined || name === ONLY);
  const runs = Object.fromEntries(chosen.map(([k]) => [k, []]));
  const cpu = Object.fromEntries(chosen.map(([k]) => [k, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, run] of chosen) {
      const t = performance.now();
      const c = process.cpuUsage();
      await run();
      runs[name].push(performance.now() - t);
      const used = process.cpuUsage(c);
      cpu[name].push((used.user + used.system) / 1000);
      rmSync(join(dir, `node-${folders - 1}`), { recursive: true, force: true });
    }
  }
  services.close();
  if (ONLY !== undefined) {
    console.log(
      JSON.stringify(
        {
          items: N,
          variant: ONLY,
          wall_ms: runs[ONLY].map(ms),
          cpu_ms: cpu[ONLY].map(ms),
          max_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
        },
        null,
        2,
      ),
    );
  } else report(runs, cpu, reportMs);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

function report(runs, cpu, reportMs) {
  const fastest = (k) => Math.min(...runs[k]);
  const paired = (k) => upperMedian(runs[k].map((x, i) => x - runs.compile[i]));
  console.log(
    JSON.stringify(
      {
        machine: `${cpus().length} cores, ${cpus()[0]?.model ?? 'cpu'}, load ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}`,
        node: process.version,
        items: N,
        rounds: ROUNDS,
        fastest_ms: Object.fromEntries(Object.keys(runs).map((k) => [k, ms(fastest(k))])),
        median_ms: Object.fromEntries(Object.keys(runs).map((k) => [k, ms(upperMedian(runs[k]))])),
        median_cpu_ms: Object.fromEntries(Object.keys(cpu).map((k) => [k, ms(upperMedian(cpu[k]))])),
        check_added_ms_fastest: {
          in_thread: ms(fastest('in_thread') - fastest('compile')),
          parallel: ms(fastest('parallel') - fastest('compile')),
        },
        check_added_ms_paired: { in_thread: ms(paired('in_thread')), parallel: ms(paired('parallel')) },
        parallel_vs_in_thread: +(fastest('parallel') / fastest('in_thread')).toFixed(3),
        report_ms_median: {
          in_thread: ms(upperMedian(reportMs.in_thread)),
          parallel: ms(upperMedian(reportMs.parallel)),
        },
        runs: Object.fromEntries(Object.entries(runs).map(([k, v]) => [k, v.map(ms)])),
      },
      null,
      2,
    ),
  );
}
