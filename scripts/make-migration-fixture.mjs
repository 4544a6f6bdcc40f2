#!/usr/bin/env node
// Records a database as nodectl at schema version N leaves it, for the migration test
// (test/platform/storage/migrations.app.test.ts): runs migrations 1..N on a fresh file with openDatabase(),
// writes the rows of scripts/migration-fixture-seed.mjs that fit that schema, and saves
// test/data/<database>-v<N>.sqlite. Run it once when you add migration N (docs/contributing.md):
//   npm run build && node scripts/make-migration-fixture.mjs control 4
// A committed fixture is never remade (like a released migration); --force replaces one anyway.
import { existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { CONTROL_SEED, GRAPH_SEED, INBOX_SEED } from './migration-fixture-seed.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const usage =
  'usage: node scripts/make-migration-fixture.mjs <control|graph|inbox> <version> [--force]  (run `npm run build` first)';

const ArgsSchema = z.object({
  database: z.enum(['control', 'graph', 'inbox'], { error: 'the database must be control, graph or inbox' }),
  version: z.coerce
    .number({ error: 'the version must be a number' })
    .int('the version must be a whole number')
    .min(1, 'versions start at 1'),
});

function fail(message) {
  process.stderr.write(`make-migration-fixture: ${message}\n${usage}\n`);
  process.exit(1);
}

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { force: { type: 'boolean', default: false } },
});
const parsed = ArgsSchema.safeParse({ database: positionals[0], version: positionals[1] });
if (!parsed.success || positionals.length !== 2)
  fail(parsed.success ? 'expected exactly two arguments' : parsed.error.issues[0].message);
const { database, version } = parsed.data;

const dist = join(root, 'dist', 'platform', 'storage');
if (!existsSync(join(dist, 'migrations', database, 'index.js')))
  fail('dist/ has no migrations: run `npm run build` first');
const { openDatabase } = await import(join(dist, 'sqlite.js'));
const { CONTROL_MIGRATIONS } = await import(join(dist, 'migrations', 'control', 'index.js'));
const { GRAPH_MIGRATIONS } = await import(join(dist, 'migrations', 'graph', 'index.js'));
const { INBOX_MIGRATIONS } = await import(join(dist, 'migrations', 'inbox', 'index.js'));
const migrations = { control: CONTROL_MIGRATIONS, graph: GRAPH_MIGRATIONS, inbox: INBOX_MIGRATIONS }[database];
const seed = { control: CONTROL_SEED, graph: GRAPH_SEED, inbox: INBOX_SEED }[database];
if (version > migrations.length) fail(`${database} has migrations up to ${migrations.length}, not ${version}`);

const target = join(root, 'test', 'data', `${database}-v${version}.sqlite`);
if (existsSync(target) && !values.force)
  fail(`${relative(root, target)} exists; a committed fixture is never remade (--force replaces it)`);

/**
 * Inserts each seed row into its table if the table exists at this version, keeping only the
 * columns it has. Tables in the seed's own order: parents before the rows that reference them.
 */
function writeSeed(db) {
  for (const table of Object.keys(seed)) {
    const columns = new Set(db.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(table));
    if (columns.size === 0) continue;
    for (const row of seed[table]) {
      const names = Object.keys(row).filter((name) => columns.has(name));
      db.prepare(`INSERT INTO ${table} (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})`).run(
        ...names.map((name) => row[name]),
      );
    }
  }
}

// Built in a temporary folder and moved into place, so a failed run leaves no half-made fixture.
// Default 4 KiB pages for graph files too: the older releases created them so, and it keeps the files small.
const work = mkdtempSync(join(dirname(target), '.fixture-'));
try {
  const file = join(work, 'fixture.sqlite');
  const db = openDatabase(file, { migrations: migrations.slice(0, version) });
  db.transaction(() => writeSeed(db))();
  db.close(); // the last connection checkpoints the WAL into the file and removes it
  renameSync(file, target);
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.stdout.write(`wrote ${relative(root, target)} (${database} schema version ${version})\n`);
