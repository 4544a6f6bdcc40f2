#!/usr/bin/env node
// What rate limiting and usage counting cost a management request: GET /v1/organizations/:id
// with an API key, served by the daemon's app over loopback with autocannon, once with the real
// services (a control.sqlite rate-limit counter per request, api_requests buffered in memory)
// and once with both replaced by no-ops, in interleaved rounds on the same data directory.
// Also times the counter write alone. Run: npm run build && node bench/limits.mjs
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { resolveConfig } from '../dist/platform/config/config.js';
import { createServices } from '../dist/daemon/create-services.js';
import { buildApp } from '../dist/daemon/app.js';
import { createApiKey } from '../dist/control/records/api-keys.js';
import { createOrganization } from '../dist/control/records/organizations.js';
import { createUser } from '../dist/control/records/users.js';
import { incrementSqliteCounter } from '../dist/platform/http/rate-limit-sqlite.js';

const DURATION = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = 20;
const dataDir = mkdtempSync(join(tmpdir(), 'nodectl-bench-limits-'));
// A limit no run reaches: every request still counts.
const config = resolveConfig({ flags: { dataDir, rateLimitPerMinute: 1_000_000 }, env: {} });
const services = createServices(config);
await createUser(services.controlDb, { email: 'bench@example.com', password: 'correct-horse-battery' }, Date.now());
const org = createOrganization(
  services.controlDb,
  { name: 'Bench', ownerEmail: 'bench@example.com', plan: 'business' },
  Date.now(),
);
const key = createApiKey(services.controlDb, { organizationId: org.id, role: 'viewer' }, Date.now()).key;

const noLimits = {
  ...services,
  rateLimits: { increment: async () => 1, read: async () => 0 },
  usage: { count() {}, flush() {}, close() {} },
};
async function serve(s) {
  const app = await buildApp(s);
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, url: `${url}/v1/organizations/${org.id}` };
}
const limited = await serve(services);
const unlimited = await serve(noLimits);
const load = (url) =>
  new Promise((resolve, reject) =>
    autocannon({ url, connections: CONNECTIONS, duration: DURATION, headers: { 'x-api-key': key } }, (err, r) =>
      err ? reject(err) : resolve(r),
    ),
  );

await load(limited.url);
await load(unlimited.url);
const rounds = { limited: [], unlimited: [] };
for (let round = 0; round < 3; round++) {
  rounds.limited.push(await load(limited.url));
  rounds.unlimited.push(await load(unlimited.url));
}
const median = (rs) => [...rs].sort((a, b) => a.requests.average - b.requests.average)[1];
const a = median(rounds.limited);
const b = median(rounds.unlimited);
if (a.non2xx || b.non2xx) throw new Error(`non-2xx answers: ${a.non2xx} limited, ${b.non2xx} unlimited`);

const N = 5000;
const started = performance.now();
for (let i = 0; i < N; i++) incrementSqliteCounter(services.controlDb, `bench:${i % 100}`, 0);
const counterUs = ((performance.now() - started) * 1000) / N;

const stored = services.controlDb
  .prepare("SELECT value FROM usage_counters WHERE organization_id = ? AND metric = 'api_requests'")
  .get(org.id);
console.log(
  JSON.stringify(
    {
      route: 'GET /v1/organizations/:id (API key)',
      connections: CONNECTIONS,
      seconds_per_round: DURATION,
      with_limits_rps: Math.round(a.requests.average),
      without_rps: Math.round(b.requests.average),
      cost_pct: +((1 - a.requests.average / b.requests.average) * 100).toFixed(1),
      with_limits_p99_ms: a.latency.p99,
      without_p99_ms: b.latency.p99,
      counter_write_us: +counterUs.toFixed(1),
      api_requests_counted: stored?.value ?? 0,
    },
    null,
    2,
  ),
);
await limited.app.close();
await unlimited.app.close();
services.close();
rmSync(dataDir, { recursive: true, force: true });
