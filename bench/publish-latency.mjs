#!/usr/bin/env node
// Event-loop health of the daemon while it publishes a large website: GET /healthz is sent at a
// fixed rate (open loop, one request every INTERVAL ms whether or not the previous one answered,
// so time the daemon spends blocked shows up in every request that waited) first with nothing
// else running, then while POST /v1/websites/:id/publish compiles and publishes a 30,000-page
// graph, against the real `nodectl serve` (built binary) on loopback, in this one run.
// Prints p50/p99/max of both phases and the ratio of the p99s. Run: npm run bench:publish-latency
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildGraphFromItems } from '../dist/ingest/graph/build-from-items.js';
import { loadWebsiteInfo } from '../dist/control/records/load-website.js';
import { openControlDb } from '../dist/platform/storage/control.js';
import { dataDirLayout, graphDbPath } from '../dist/platform/storage/data-dir.js';
import { startBenchDaemon } from './lib/daemon.mjs';
import { seedBenchSite } from './lib/seed-site.mjs';

const ITEMS = Number(process.env.BENCH_ITEMS ?? 30_000);
const INTERVAL = Number(process.env.BENCH_INTERVAL_MS ?? 20);
const BASELINE_MS = Number(process.env.BENCH_BASELINE_MS ?? 5_000);
const BIN = new URL('../bin/nodectl', import.meta.url).pathname;
const DOMAIN = 'latency.example';
const dataDir = mkdtempSync(join(tmpdir(), 'nodectl-bench-latency-'));

function item(i) {
  const kind = i % 3 === 0 ? 'post' : 'product';
  const words = Array.from(
    { length: 120 },
    (_, w) => ['coffee', 'grinder', 'roast', 'espresso', 'filter', 'bean', 'origin', 'brew'][(i * 7 + w) % 8],
  ).join(' ');
  const text = `${kind === 'product' ? 'Product' : 'Article'} ${i}\n\n${words}.\n\nMade in Hamburg. Item number ${i}.`;
  const base = {
    type: kind,
    id: `${kind}:${i}`,
    url: `https://${DOMAIN}/${kind}s/${i}`,
    title: `${kind === 'product' ? 'Product' : 'Article'} ${i}`,
    text,
    checksum: 'sha256:' + i.toString(16).padStart(64, '0'),
  };
  if (kind === 'product') base.json = { price: { amount: 10 + (i % 90), currency: 'EUR' }, sku: `SKU-${i}` };
  return base;
}

function startDaemon() {
  return startBenchDaemon(dataDir);
}

/** Sends GET /healthz every INTERVAL ms until `until` settles (or `ms` pass); resolves with the latencies (ms). */
async function probe(url, { until, ms }) {
  const latencies = [];
  const inflight = [];
  let done = false;
  until?.finally(() => (done = true));
  const stopAt = ms === undefined ? Infinity : performance.now() + ms;
  while (!done && performance.now() < stopAt) {
    const sent = performance.now();
    inflight.push(
      fetch(`${url}/healthz`).then(async (res) => {
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`/healthz answered ${res.status}`);
        latencies.push(performance.now() - sent);
      }),
    );
    await new Promise((r) => setTimeout(r, INTERVAL));
  }
  await Promise.all(inflight);
  return latencies;
}

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const summary = (values) => ({
  samples: values.length,
  p50Ms: Number(percentile(values, 50).toFixed(1)),
  p99Ms: Number(percentile(values, 99).toFixed(1)),
  maxMs: Number(Math.max(...values).toFixed(1)),
});

let daemon;
try {
  const {
    site: website,
    keys: [key],
  } = seedBenchSite({ bin: BIN, dataDir, domain: DOMAIN, name: 'Bench', plan: 'pro', keyRoles: ['editor'] });
  const graphStarted = performance.now();
  const layout = dataDirLayout(dataDir);
  const control = openControlDb(layout);
  const info = loadWebsiteInfo(control, website.id);
  control.close();
  buildGraphFromItems(
    Array.from({ length: ITEMS }, (_, i) => item(i)),
    info,
    { receivedAt: '2026-03-01T00:00:00Z', file: graphDbPath(layout, website.id) },
  ).close();
  console.error(`graph of ${ITEMS} items built in ${((performance.now() - graphStarted) / 1000).toFixed(1)} s`);

  daemon = await startDaemon();
  await probe(daemon.url, { ms: 500 }); // warm-up
  const idle = await probe(daemon.url, { ms: BASELINE_MS });
  const started = performance.now();
  const publish = fetch(`${daemon.url}/v1/websites/${website.id}/publish`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
  }).then(async (res) => ({ status: res.status, body: await res.json() }));
  const during = await probe(daemon.url, { until: publish });
  const published = await publish;
  const publishSeconds = (performance.now() - started) / 1000;
  if (published.status !== 200)
    throw new Error(`publish answered ${published.status}: ${JSON.stringify(published.body)}`);
  const report = {
    machine: `${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), node ${process.version}`,
    items: ITEMS,
    files: published.body.data.files.length,
    publishSeconds: Number(publishSeconds.toFixed(2)),
    probeIntervalMs: INTERVAL,
    healthzIdle: summary(idle),
    healthzDuringPublish: summary(during),
    p99Ratio: Number((percentile(during, 99) / percentile(idle, 99)).toFixed(1)),
  };
  console.log(JSON.stringify(report, null, 2));
} finally {
  daemon?.child.kill('SIGTERM');
  if (daemon) await new Promise((r) => daemon.child.on('exit', r));
  rmSync(dataDir, { recursive: true, force: true });
}
