#!/usr/bin/env node
// Serving node files with read analytics (docs/knowledge.md "Analytics"): GET /nodes/<domain>/llms.txt
// throughput of the daemon's app, in process on loopback with autocannon, each request counted
// (User-Agent classified, counted per hour, agent and file, written every 2 s). With
// --baseline <dist>, the same run against another build's dist/ (e.g. the commit before the
// analytics counter) alternates with this one, three rounds, so both see the same machine.
// Usage: npm run build && node bench/node-reads.mjs [--baseline DIR] [--seconds S]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { upperMedian } from './lib/stats.mjs';

const arg = (name) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
};
const SECONDS = Number(arg('--seconds') ?? 8);
const BASELINE = arg('--baseline');
const ROOT = resolve(new URL('..', import.meta.url).pathname);
const DOMAIN = 'www.kaffeewerk.example';
const UA = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)';

async function load(dist) {
  const at = (path) => import(pathToFileURL(join(dist, path)).href);
  return {
    ...(await at('platform/config/config.js')),
    ...(await at('daemon/create-services.js')),
    ...(await at('daemon/app.js')),
    ...(await at('control/records/users.js')),
    ...(await at('control/records/organizations.js')),
    ...(await at('control/records/websites.js')),
    ...(await at('compiler/index.js')),
    ...(await at('ingest/graph/build-from-items.js')),
    ...(await at('platform/storage/data-dir.js')),
    ...(await at('control/records/load-website.js')),
    ...(await at('output/publish/run-publish.js')),
    ...(await at('output/publish/targets/index.js')),
  };
}

/** A data directory with the shop fixture published for one website, served by `m`'s app. */
async function startServing(m) {
  const dir = mkdtempSync(join(tmpdir(), 'nodectl-bench-reads-'));
  // The general per-address limit (1,200/min) would answer most of a benchmark's requests 429.
  const config = m.resolveConfig({ flags: { dataDir: dir, rateLimitPerMinute: 1_000_000 }, env: {} });
  const services = m.createServices(config);
  await m.createUser(services.controlDb, { email: 'owner@bench.example', password: 'correct-horse-battery' });
  const org = m.createOrganization(services.controlDb, {
    name: 'Bench',
    ownerEmail: 'owner@bench.example',
    plan: 'pro',
  });
  const website = m.createWebsite(services.controlDb, {
    organizationId: org.id,
    domain: DOMAIN,
    name: 'Bench',
    verifiedMethod: 'dns_txt',
  });
  const info = m.loadWebsiteInfo(services.controlDb, website.id);
  m.buildGraphFromItems(m.loadFixture(join(ROOT, 'fixtures', 'shop')).items, info, {
    receivedAt: '2026-03-02T09:00:00Z',
    file: m.graphDbPath(services.layout, website.id),
  }).close();
  const target = await m.createTargetFromSettings(config.settings);
  await m.runPublish({
    settings: config.settings,
    controlDb: services.controlDb,
    target,
    source: { kind: 'website', websiteId: website.id },
  });
  await target.close();
  const app = await m.buildApp(services);
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    url,
    async stop() {
      await app.close();
      services.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function measure(m) {
  const server = await startServing(m);
  try {
    const result = await autocannon({
      url: `${server.url}/nodes/${DOMAIN}/llms.txt`,
      connections: 20,
      duration: SECONDS,
      headers: { 'user-agent': UA },
    });
    if (result.non2xx > 0) throw new Error(`${result.non2xx} answers were not 2xx`);
    return { rps: Math.round(result.requests.average), p50_ms: result.latency.p50, p99_ms: result.latency.p99 };
  } finally {
    await server.stop();
  }
}

const builds = { current: await load(join(ROOT, 'dist')) };
if (BASELINE) builds.baseline = await load(resolve(BASELINE));
const runs = Object.fromEntries(Object.keys(builds).map((k) => [k, []]));
for (let round = 0; round < (BASELINE ? 3 : 1); round++)
  for (const [name, m] of Object.entries(builds)) runs[name].push(await measure(m));
const summary = Object.fromEntries(
  Object.entries(runs).map(([name, list]) => [name, { rps_median: upperMedian(list.map((r) => r.rps)), runs: list }]),
);
if (BASELINE)
  summary.rps_change = Math.round((summary.current.rps_median / summary.baseline.rps_median - 1) * 1000) / 1000;
console.log(JSON.stringify({ seconds: SECONDS, file: 'llms.txt', ...summary }, null, 2));
