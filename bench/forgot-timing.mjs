#!/usr/bin/env node
// How long POST /v1/auth/password/forgot takes for an address that has an account against one
// that has none, back to back against a daemon (`nodectl serve`, its own process, as a
// client would see it) over loopback: the same, or the difference tells who has an account. The request
// only enqueues the accounts.mail job; the lookup, the token and the mail run in the job.
// Alternates --reps requests of each (default 41), each timed from send to the end of the body,
// after a few of each to warm up; reports the medians and their ratio, which should stay near 1.
// test/control/accounts/enumeration.app.test.ts checks that both requests do the same work.
// Usage: npm run build && node bench/forgot-timing.mjs [--reps N]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createUser } from '../dist/control/records/users.js';
import { openControlDb } from '../dist/platform/storage/control.js';
import { dataDirLayout } from '../dist/platform/storage/data-dir.js';
import { upperMedian } from './lib/stats.mjs';

const REPS = process.argv.includes('--reps') ? Number(process.argv[process.argv.indexOf('--reps') + 1]) : 41;
const BIN = fileURLToPath(new URL('../bin/nodectl', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'nodectl-bench-forgot-'));

/** Starts `nodectl serve` on a free port; resolves its URL and the child. */
function serve() {
  const child = spawn(process.execPath, [BIN, '--data-dir', dir, 'serve', '--host', '127.0.0.1', '--port', '0'], {
    env: {
      ...process.env,
      NODECTL_LOG_LEVEL: 'warn',
      NODECTL_EXTRACTION_WARM_UP_PAGES: '0',
      // Every request must reach the route: the limit is not what is measured.
      NODECTL_AUTH_RATE_LIMIT_PER_MINUTE: '100000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk) => {
      output += chunk;
      const match = /listening on (http:\/\/[^\s]+)/.exec(output);
      if (match) resolve({ child, url: match[1] });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`nodectl serve exited with ${code}:\n${output}`)));
  });
}

try {
  const db = openControlDb(dataDirLayout(dir));
  await createUser(db, { email: 'ada@example.com', password: 'correct-horse-battery' });
  db.close();
  const { child, url } = await serve();
  try {
    const time = async (email) => {
      const start = performance.now();
      const res = await fetch(`${url}/v1/auth/password/forgot`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email }),
      });
      await res.text();
      if (res.status !== 202) throw new Error(`forgot answered ${res.status}`);
      return performance.now() - start;
    };
    for (let i = 0; i < 5; i++) (await time('ada@example.com'), await time(`warm${i}@example.com`));
    const known = [];
    const unknown = [];
    for (let i = 0; i < REPS; i++) {
      known.push(await time('ada@example.com'));
      unknown.push(await time(`nobody${i}@example.com`));
    }
    console.log(
      JSON.stringify(
        {
          machine: `${cpus().length} cores, ${cpus()[0]?.model ?? 'cpu'}, load ${loadavg()
            .map((l) => l.toFixed(2))
            .join(' ')}`,
          node: process.version,
          reps: REPS,
          median_ms: { known_email: +upperMedian(known).toFixed(2), unknown_email: +upperMedian(unknown).toFixed(2) },
          ratio_known_vs_unknown: +(upperMedian(known) / upperMedian(unknown)).toFixed(2),
        },
        null,
        2,
      ),
    );
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
