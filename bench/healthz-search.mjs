#!/usr/bin/env node
// /healthz while knowledge searches run (issue 36 F13): a real daemon (`nodectl serve`) over a
// data directory holding one website whose graph has N generated pages (bench/lib/zipf-items.mjs).
// /healthz is timed one request after another on a connection of its own: first idle, then
// while --concurrency searches are in flight at once, (a) all from one API key, (b) each from an
// API key of its own (the per-caller cap cannot refuse them: only the queue's turns help).
// --rounds bursts each; medians and p99 of /healthz, the ratio against idle, and the searches'
// answers by status. With --bin <path>, another build's bin/nodectl runs the same (a baseline).
// Usage: npm run build && node bench/healthz-search.mjs [--items N] [--concurrency C] [--rounds R] [--bin PATH]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { extractItem } from '../dist/ingest/extract/index.js';
import { applyContributions } from '../dist/ingest/graph/apply-contribution.js';
import { GRAPH_DB_OPTIONS } from '../dist/ingest/graph/schema.js';
import { emptySearchTouched, refreshSearchDocs } from '../dist/ingest/graph/search-docs.js';
import { createApiKey } from '../dist/control/records/api-keys.js';
import { createOrganization } from '../dist/control/records/organizations.js';
import { createUser } from '../dist/control/records/users.js';
import { createWebsite } from '../dist/control/records/websites.js';
import { openControlDb } from '../dist/platform/storage/control.js';
import { dataDirLayout, graphDbPath } from '../dist/platform/storage/data-dir.js';
import { openDatabase } from '../dist/platform/storage/sqlite.js';
import { startBenchDaemon } from './lib/daemon.mjs';
import { createItemGenerator, VOCAB } from './lib/zipf-items.mjs';
import { upperMedian } from './lib/stats.mjs';

const arg = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : fallback;
};
const N = Number(arg('--items', 20_000));
const CONCURRENCY = Number(arg('--concurrency', 200));
const ROUNDS = Number(arg('--rounds', 3));
const BIN = arg('--bin', undefined);
const IDLE_SAMPLES = 200;
const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
};
const round = (x, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

/** A data directory with one website, its graph of N pages, and `keys` API keys of its organization. */
async function seed(dir, keys) {
  const layout = dataDirLayout(dir);
  const control = openControlDb(layout);
  await createUser(control, { email: 'owner@bench.example', password: 'correct-horse-battery' });
  const org = createOrganization(control, { name: 'Bench', ownerEmail: 'owner@bench.example', plan: 'pro' });
  const website = createWebsite(control, {
    organizationId: org.id,
    domain: 'shop.example',
    name: 'Bench',
    verifiedMethod: 'dns_txt',
  });
  const apiKeys = Array.from(
    { length: keys },
    () => createApiKey(control, { organizationId: org.id, role: 'viewer' }).key,
  );
  control.close();
  const site = {
    websiteId: website.id,
    domain: 'shop.example',
    brand: 'Acme',
    defaultLanguage: 'en',
    plan: 'pro',
    verification: { method: 'dns_txt', state: 'verified' },
    aliases: [],
  };
  const graph = openDatabase(graphDbPath(layout, website.id), GRAPH_DB_OPTIONS);
  const gen = createItemGenerator(42);
  for (let start = 0; start < N; start += 500) {
    const batch = [];
    for (let i = start; i < Math.min(N, start + 500); i++)
      batch.push(extractItem(gen.item(i), site, { receivedAt: '2026-02-01T12:00:00.000Z' }));
    graph.transaction(() => {
      const touched = emptySearchTouched();
      applyContributions(graph, site, batch, touched);
      refreshSearchDocs(graph, touched);
    })();
  }
  graph.close();
  return { websiteId: website.id, apiKeys };
}

const dir = mkdtempSync(join(tmpdir(), 'nodectl-bench-healthz-'));
let daemon;
try {
  const { websiteId, apiKeys } = await seed(dir, CONCURRENCY);
  // The general limit would answer most searches 429 before the queue sees them.
  process.env.NODECTL_RATE_LIMIT_PER_MINUTE = '1000000';
  daemon = await startBenchDaemon(dir, BIN ? { bin: BIN } : {});
  const probe = new Agent({ connections: 1 });
  const load = new Agent({ connections: CONCURRENCY });
  const healthz = async () => {
    const t = performance.now();
    const res = await fetch(`${daemon.url}/healthz`, { dispatcher: probe });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`/healthz answered ${res.status}`);
    return performance.now() - t;
  };
  let q = 0;
  const query = () => {
    q++;
    return q % 2 ? VOCAB[q % 20] : `${VOCAB[q % 300]} ${VOCAB[(q * 7) % 300]}`;
  };
  const search = async (key) => {
    const t = performance.now();
    const res = await fetch(
      `${daemon.url}/v1/websites/${websiteId}/knowledge/search?q=${encodeURIComponent(query())}&limit=20`,
      { headers: { authorization: `Bearer ${key}` }, dispatcher: load },
    );
    await res.arrayBuffer();
    return { status: res.status, ms: performance.now() - t };
  };

  for (let i = 0; i < 50; i++) await healthz(); // warm-up
  const idle = [];
  for (let i = 0; i < IDLE_SAMPLES; i++) idle.push(await healthz());
  for (let i = 0; i < 20; i++) await search(apiKeys[0]); // warm the graph's pages and the search path

  /** ROUNDS bursts of CONCURRENCY searches by `keyOf(i)`, /healthz timed back to back meanwhile. */
  const underLoad = async (keyOf) => {
    const samples = [];
    const statuses = {};
    const searchMs = [];
    for (let r = 0; r < ROUNDS; r++) {
      let done = false;
      const burst = Promise.all(Array.from({ length: CONCURRENCY }, (_, i) => search(keyOf(i)))).then((answers) => {
        done = true;
        return answers;
      });
      while (!done) samples.push(await healthz());
      for (const a of await burst) {
        statuses[a.status] = (statuses[a.status] ?? 0) + 1;
        if (a.status === 200) searchMs.push(a.ms);
      }
    }
    return {
      healthz_samples: samples.length,
      healthz_p50_ms: round(upperMedian(samples)),
      healthz_p99_ms: round(quantile(samples, 0.99)),
      healthz_max_ms: round(Math.max(...samples)),
      ratio_p50_to_idle: round(upperMedian(samples) / upperMedian(idle), 1),
      search_statuses: statuses,
      answered_search_p50_ms: searchMs.length ? round(upperMedian(searchMs)) : null,
    };
  };
  const oneKey = await underLoad(() => apiKeys[0]);
  const keyEach = await underLoad((i) => apiKeys[i]);
  console.log(
    JSON.stringify(
      {
        items: N,
        concurrency: CONCURRENCY,
        rounds: ROUNDS,
        bin: BIN ?? 'this build',
        idle: { healthz_p50_ms: round(upperMedian(idle)), healthz_p99_ms: round(quantile(idle, 0.99)) },
        one_api_key: oneKey,
        an_api_key_each: keyEach,
      },
      null,
      2,
    ),
  );
  await probe.close();
  await load.close();
} finally {
  daemon?.child.kill('SIGTERM');
  if (daemon) await new Promise((resolve) => daemon.child.once('exit', resolve));
  rmSync(dir, { recursive: true, force: true });
}
