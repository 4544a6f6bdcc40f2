#!/usr/bin/env node
// Start time of a process (issue 35 item 6, issue 37 item 2): the same build run two ways in one
// session, alternating: dist/bundle/nodectl.js (what bin/nodectl loads: the CLI and its workers
// bundled by esbuild) against dist/cli/main.js (tsc's output, one module file at a time, as every
// start loaded it before the bundle). Cases: `--version`, `compile` of fixtures/blog, and `serve`
// to the first /readyz 200. Prints the median wall time of each and the ratio unbundled/bundled.
// Run: npm run build && node bench/cli-start.mjs [rounds]
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { upperMedian } from './lib/stats.mjs';

const ROOT = new URL('..', import.meta.url).pathname;
const ROUNDS = Number(process.argv[2] ?? 9);
const ENTRIES = { bundled: join(ROOT, 'dist/bundle/nodectl.js'), unbundled: join(ROOT, 'dist/cli/main.js') };
const env = { ...process.env, NODECTL_LOG_LEVEL: 'warn' };

function timed(entry, args) {
  const started = performance.now();
  const run = spawnSync(process.execPath, [entry, ...args], { env, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`${entry} ${args.join(' ')} exited ${run.status}: ${run.stderr}`);
  return performance.now() - started;
}

async function serveToReady(entry) {
  const dataDir = mkdtempSync(join(tmpdir(), 'nodectl-bench-cli-start-'));
  const started = performance.now();
  const child = spawn(process.execPath, [entry, '--data-dir', dataDir, 'serve', '--port', '0'], { env });
  let out = '';
  const url = await new Promise((resolve, reject) => {
    const read = (chunk) => {
      out += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) resolve(match[1]);
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}:\n${out}`)));
  });
  while ((await fetch(`${url}/readyz`).catch(() => undefined))?.status !== 200);
  const ms = performance.now() - started;
  const exited = new Promise((resolve) => child.on('exit', resolve));
  child.kill('SIGTERM');
  await exited;
  rmSync(dataDir, { recursive: true, force: true });
  return ms;
}

const out = mkdtempSync(join(tmpdir(), 'nodectl-bench-cli-start-out-'));
const cases = {
  version: (entry) => timed(entry, ['--version']),
  compile: (entry) => timed(entry, ['compile', join(ROOT, 'fixtures/blog'), '--out', join(out, 'node')]),
  serve: (entry) => serveToReady(entry),
};
const samples = {};
for (let round = 0; round < ROUNDS; round++) {
  // Alternate which goes first, so neither always runs on a warmer machine.
  const order = round % 2 ? ['unbundled', 'bundled'] : ['bundled', 'unbundled'];
  for (const [name, run] of Object.entries(cases))
    for (const kind of order) ((samples[name] ??= {})[kind] ??= []).push(await run(ENTRIES[kind]));
}
rmSync(out, { recursive: true, force: true });
const report = { rounds: ROUNDS, load: loadavg()[0], node: process.version, cases: {} };
for (const [name, kinds] of Object.entries(samples)) {
  const bundled = upperMedian(kinds.bundled);
  const unbundled = upperMedian(kinds.unbundled);
  report.cases[name] = {
    bundledMs: Math.round(bundled),
    unbundledMs: Math.round(unbundled),
    ratio: Number((unbundled / bundled).toFixed(2)),
  };
}
console.log(JSON.stringify(report, null, 2));
