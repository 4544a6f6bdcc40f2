// What a control statement costs on each control store (issue 41, docs/scaling.md): the same
// INSERT and keyed SELECT, one at a time, through
//   - control.sqlite (better-sqlite3, the default store),
//   - the control Db on PostgreSQL (a worker thread holds the connection; the caller waits),
//   - the raw baseline: node-postgres awaited statement by statement, the same round trips.
// Needs a PostgreSQL it may create databases in:
//   node bench/control-store.mjs --url postgres://user@127.0.0.1:5432/postgres [--statements 2000]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { freshBenchDatabase } from './lib/postgres.mjs';

const { values: args } = parseArgs({
  options: { url: { type: 'string' }, statements: { type: 'string', default: '2000' } },
});
const serverUrl = args.url ?? process.env.NODECTL_BENCH_POSTGRES_URL;
if (!serverUrl) {
  console.error('bench/control-store.mjs needs a PostgreSQL server: --url postgres://user@host:port/postgres');
  process.exit(2);
}
const n = Number(args.statements);
if (!Number.isInteger(n) || n < 100) {
  console.error('--statements must be an integer of at least 100');
  process.exit(2);
}

const { openControlDb, dataDirLayout } = await import('../dist/platform/storage/index.js');

const INSERT = 'INSERT INTO waitlist (email, source, consent_at, created_at) VALUES (?, ?, ?, ?)';
const SELECT = 'SELECT email, source FROM waitlist WHERE email = ?';
const perStatementUs = (ms) => Math.round((ms * 1000) / n);

/** n INSERTs then n keyed SELECTs through a Db (either store), each timed as a whole. */
function timeDb(db) {
  const insert = db.prepare(INSERT);
  const select = db.prepare(SELECT);
  let start = performance.now();
  for (let i = 0; i < n; i++) insert.run(`user${i}@example.com`, 'bench', 't', 't');
  const inserts = performance.now() - start;
  start = performance.now();
  for (let i = 0; i < n; i++) select.get(`user${i}@example.com`);
  return { insert_us: perStatementUs(inserts), select_us: perStatementUs(performance.now() - start) };
}

const folder = mkdtempSync(join(tmpdir(), 'nodectl-bench-control-'));
try {
  const sqlite = openControlDb(dataDirLayout(folder));
  const onSqlite = timeDb(sqlite);
  sqlite.close();

  const url = await freshBenchDatabase(serverUrl, 'control');
  const postgres = openControlDb(dataDirLayout(folder), url);
  const onPostgres = timeDb(postgres);
  postgres.close();

  const raw = new pg.Client({ connectionString: url });
  await raw.connect();
  await raw.query('DELETE FROM waitlist');
  let start = performance.now();
  for (let i = 0; i < n; i++)
    await raw.query('INSERT INTO waitlist (email, source, consent_at, created_at) VALUES ($1, $2, $3, $4)', [
      `user${i}@example.com`,
      'bench',
      't',
      't',
    ]);
  const rawInserts = performance.now() - start;
  start = performance.now();
  for (let i = 0; i < n; i++)
    await raw.query('SELECT email, source FROM waitlist WHERE email = $1', [`user${i}@example.com`]);
  const baseline = { insert_us: perStatementUs(rawInserts), select_us: perStatementUs(performance.now() - start) };
  await raw.end();

  console.log(
    JSON.stringify(
      {
        statements: n,
        control_sqlite: onSqlite,
        control_postgres: onPostgres,
        raw_postgres_baseline: baseline,
        postgres_vs_baseline: {
          insert: +(onPostgres.insert_us / baseline.insert_us).toFixed(2),
          select: +(onPostgres.select_us / baseline.select_us).toFixed(2),
        },
      },
      null,
      2,
    ),
  );
} finally {
  rmSync(folder, { recursive: true, force: true });
}
