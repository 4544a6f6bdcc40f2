#!/usr/bin/env node
// Runs every benchmark script in turn (each prints its own JSON report).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const scripts = [
  'serve',
  'cli-start',
  'validate-item',
  'ingest',
  'extract',
  'extract-hostile',
  'graph',
  'fact-read',
  'hybrid-search',
  'e2e',
  'compile',
  'written-check',
  'publish',
  'publish-latency',
  'login-timing',
];
let failed = 0;
for (const name of scripts) {
  const file = new URL(`./${name}.mjs`, import.meta.url).pathname;
  if (!existsSync(file)) continue;
  console.log(`\n== bench/${name}.mjs`);
  const run = spawnSync('node', [file], { stdio: 'inherit' });
  if (run.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
