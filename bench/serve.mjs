#!/usr/bin/env node
// Foundation benchmark (issue 2): cold start of `nodectl serve` to the first /readyz 200, and
// GET /healthz throughput of the daemon against a raw node:http server returning the same body,
// both measured in this one run with autocannon on loopback. Run: npm run bench:serve
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';

const BIN = new URL('../bin/nodectl', import.meta.url).pathname;
const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 50;

async function waitReady(url, started) {
  for (;;) {
    try {
      const res = await fetch(`${url}/readyz`);
      if (res.status === 200) return performance.now() - started;
    } catch {}
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function startDaemon(dataDir) {
  const started = performance.now();
  const child = spawn('node', [BIN, '--data-dir', dataDir, 'serve', '--port', '0'], {
    env: { ...process.env, NODECTL_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let out = '';
  const url = await new Promise((resolve, reject) => {
    child.stderr.on('data', (c) => {
      out += c;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${out}`)));
  });
  const readyMs = await waitReady(url, started);
  return { child, url, readyMs };
}

function load(url) {
  return new Promise((resolve, reject) =>
    autocannon({ url, connections: CONNECTIONS, duration: DURATION }, (err, result) =>
      err ? reject(err) : resolve(result),
    ),
  );
}

const dataDir = mkdtempSync(join(tmpdir(), 'nodectl-bench-'));
const coldStarts = [];
for (let i = 0; i < 5; i++) {
  const dir = mkdtempSync(join(tmpdir(), 'nodectl-cold-'));
  const d = await startDaemon(dir);
  coldStarts.push(d.readyMs);
  d.child.kill('SIGTERM');
  await new Promise((r) => d.child.on('exit', r));
  rmSync(dir, { recursive: true, force: true });
}
const daemon = await startDaemon(dataDir);

// The raw baseline returns the same bytes /healthz returns (with a fresh request id each time).
const sample = await (await fetch(`${daemon.url}/healthz`)).text();
const [head, tail] = sample.split(/"requestId":"[^"]+"/);
let counter = 0;
const raw = createServer((req, res) => {
  const body = `${head}"requestId":"${String(++counter).padStart(26, '0')}"${tail}`;
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
await new Promise((r) => raw.listen(0, '127.0.0.1', r));
const rawUrl = `http://127.0.0.1:${raw.address().port}/healthz`;

// Interleaved rounds so a noisy neighbour hurts both sides alike; the median round counts.
await load(`${daemon.url}/healthz`); // warm-up
const oursRounds = [];
const rawRounds = [];
for (let round = 0; round < 3; round++) {
  oursRounds.push(await load(`${daemon.url}/healthz`));
  rawRounds.push(await load(rawUrl));
}
const median = (rounds) => [...rounds].sort((a, b) => a.requests.average - b.requests.average)[1];
const ours = median(oursRounds);
const baseline = median(rawRounds);
daemon.child.kill('SIGTERM');
raw.close();
rmSync(dataDir, { recursive: true, force: true });

coldStarts.sort((a, b) => a - b);
const report = {
  machine: `${(await import('node:os')).cpus().length} cores, node ${process.version}`,
  coldStartToReadyMs: {
    median: Math.round(coldStarts[2]),
    min: Math.round(coldStarts[0]),
    max: Math.round(coldStarts[4]),
    runs: coldStarts.length,
  },
  healthz: {
    connections: CONNECTIONS,
    secondsPerRound: DURATION,
    rounds: 3,
    nodectlRps: Math.round(ours.requests.average),
    rawNodeHttpRps: Math.round(baseline.requests.average),
    ratio: Number((ours.requests.average / baseline.requests.average).toFixed(3)),
    nodectlP99Ms: ours.latency.p99,
    rawP99Ms: baseline.latency.p99,
    errors: ours.errors + ours.non2xx,
  },
};
console.log(JSON.stringify(report, null, 2));
