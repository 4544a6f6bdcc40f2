#!/usr/bin/env node
// Warm start (issue 37): `npm start` in a clone whose dependencies are installed and whose build is
// current, from the command to the first /readyz 200. Each run uses a fresh data directory and an
// ephemeral port. Run: node bench/start.mjs [runs]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = new URL('..', import.meta.url).pathname;
const RUNS = Number(process.argv[2] ?? 3);

async function waitReady(url) {
  for (;;) {
    try {
      const res = await fetch(`${url}/readyz`);
      if (res.status === 200) return;
    } catch {
      // not listening yet: try again
    }
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function startOnce() {
  const dataDir = mkdtempSync(join(tmpdir(), 'nodectl-bench-start-'));
  const started = performance.now();
  // Its own process group, so the stop reaches npm, sh and the daemon alike.
  const child = spawn('npm', ['start', '--silent'], {
    cwd: ROOT,
    detached: true,
    env: {
      ...process.env,
      NODECTL_DATA_DIR: dataDir,
      NODECTL_HOST: '127.0.0.1',
      NODECTL_PORT: '0',
      NODECTL_LOG_LEVEL: 'warn',
      NODECTL_EXTRACTION_WARM_UP_PAGES: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const url = await new Promise((resolve, reject) => {
    const read = (c) => {
      out += c;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]);
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.on('exit', (code) => reject(new Error(`npm start exited with ${code}:\n${out}`)));
  });
  await waitReady(url);
  const ms = performance.now() - started;
  const exited = new Promise((r) => child.on('exit', r));
  process.kill(-child.pid, 'SIGTERM');
  await exited;
  rmSync(dataDir, { recursive: true, force: true });
  return ms;
}

const times = [];
for (let i = 0; i < RUNS; i++) times.push(await startOnce());
const sorted = [...times].sort((a, b) => a - b);
console.log(
  JSON.stringify({
    bench: 'npm start to /readyz 200 (warm: dependencies installed, build current)',
    node: process.version,
    loadavg1: Number(loadavg()[0].toFixed(2)),
    runsMs: times.map((t) => Math.round(t)),
    medianMs: Math.round(sorted[Math.floor(sorted.length / 2)]),
  }),
);
