#!/usr/bin/env node
// How long a failed login takes for an email no account has, against a wrong password of a real
// account: the same, or the difference tells who has an account (login.ts runs a dummy scrypt for
// an unknown email). Alternates --reps logins of each (default 21) in this one run, after one of
// each to warm up (the dummy hash is made once); reports the medians and their ratio, which
// should stay near 1. test/control/accounts/account-service.app.test.ts checks that both run one
// scrypt of the same cost; this measures what that costs in time.
// Usage: npm run build && node bench/login-timing.mjs [--reps N]
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAccountsContext } from '../dist/control/accounts/context.js';
import { login } from '../dist/control/accounts/login.js';
import { register } from '../dist/control/accounts/register.js';
import { resolveConfig } from '../dist/platform/config/config.js';
import { openControlDb } from '../dist/platform/storage/control.js';
import { dataDirLayout } from '../dist/platform/storage/data-dir.js';
import { upperMedian } from './lib/stats.mjs';

const REPS = process.argv.includes('--reps') ? Number(process.argv[process.argv.indexOf('--reps') + 1]) : 21;
const PASSWORD = 'correct-horse-battery';
const dir = mkdtempSync(join(tmpdir(), 'nodectl-bench-login-'));
try {
  const settings = resolveConfig({ env: {}, flags: { dataDir: dir } }).settings;
  const layout = dataDirLayout(dir);
  const db = openControlDb(layout);
  const ctx = await createAccountsContext({ db, layout, settings });
  try {
    await register(ctx, { email: 'ada@example.com', password: PASSWORD, orgName: 'Bench' });
    const time = async (email) => {
      const start = performance.now();
      await login(ctx, { email, password: 'wrong-password-1' }).catch(() => undefined);
      return performance.now() - start;
    };
    await time('warm@example.com');
    await time('ada@example.com');
    const unknown = [];
    const wrong = [];
    for (let i = 0; i < REPS; i++) {
      unknown.push(await time(`nobody${i}@example.com`));
      wrong.push(await time('ada@example.com'));
    }
    console.log(
      JSON.stringify(
        {
          machine: `${cpus().length} cores, ${cpus()[0]?.model ?? 'cpu'}, load ${loadavg()
            .map((l) => l.toFixed(2))
            .join(' ')}`,
          node: process.version,
          reps: REPS,
          median_ms: {
            unknown_email: +upperMedian(unknown).toFixed(1),
            wrong_password: +upperMedian(wrong).toFixed(1),
          },
          ratio_unknown_vs_wrong: +(upperMedian(unknown) / upperMedian(wrong)).toFixed(2),
        },
        null,
        2,
      ),
    );
  } finally {
    ctx.close();
    db.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
