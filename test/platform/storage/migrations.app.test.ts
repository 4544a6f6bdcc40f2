import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { listConnectors } from '../../../src/control/connectors/connectors.js';
import { processRawItems } from '../../../src/ingest/graph/process-raw-items.js';
import { SqliteGraphReader } from '../../../src/ingest/graph/reader.js';
import { createSqliteIdempotencyStore } from '../../../src/ingest/endpoints/stores/sqlite-stores.js';
import { JobQueue } from '../../../src/platform/jobs/queue.js';
import type { WebsiteInfo } from '../../../src/control/records/website-info.js';
import { CONTROL_MIGRATIONS } from '../../../src/platform/storage/migrations/control/index.js';
import { GRAPH_MIGRATIONS } from '../../../src/platform/storage/migrations/graph/index.js';
import { INBOX_MIGRATIONS } from '../../../src/platform/storage/migrations/inbox/index.js';
import { openControlDb } from '../../../src/platform/storage/control.js';
import { GraphDbPool } from '../../../src/platform/storage/graph-db.js';
import { dataDirLayout, graphDbPath, graphInboxPath } from '../../../src/platform/storage/data-dir.js';
import {
  latestVersion,
  openDatabase,
  SchemaTooNewError,
  type Db,
  type Migration,
} from '../../../src/platform/storage/sqlite.js';
import { resolveApiKey } from '../../../src/control/records/api-keys.js';
import { verifyPassword } from '../../../src/control/records/password-hash.js';
import { listUsers } from '../../../src/control/records/users.js';
import { listWebsites } from '../../../src/control/records/websites.js';
import { makeTempDir, PROJECT_ROOT } from '../../helpers/paths.js';

const DATABASES = [
  { database: 'control', migrations: CONTROL_MIGRATIONS },
  { database: 'graph', migrations: GRAPH_MIGRATIONS },
  { database: 'inbox', migrations: INBOX_MIGRATIONS },
] as const;
type DatabaseName = (typeof DATABASES)[number]['database'];
const migrationsDir = (database: string) => join(PROJECT_ROOT, 'src', 'platform', 'storage', 'migrations', database);
const MIGRATION_FILE = /^(\d{4})-([a-z0-9]+(?:-[a-z0-9]+)*)\.ts$/;

const DATA_DIR = join(PROJECT_ROOT, 'test', 'data');
const FIXTURE_FILE = /^(control|graph|inbox)-v(\d+)\.sqlite$/;
const FIXTURES = readdirSync(DATA_DIR)
  .flatMap((file) => {
    const match = FIXTURE_FILE.exec(file);
    return match ? [{ file, database: match[1] as DatabaseName, version: Number(match[2]) }] : [];
  })
  .sort((a, b) => a.database.localeCompare(b.database) || a.version - b.version);
const migrationsOf = (database: DatabaseName) => DATABASES.find((d) => d.database === database)!.migrations;

// What scripts/make-migration-fixture.mjs (scripts/migration-fixture-seed.mjs) writes into every fixture.
const T0 = Date.UTC(2025, 0, 15, 9, 30);
const MINUTE = 60_000;
const WEBSITE = 'web_01JHKAB5P8S0T4W6X8Z0B2E4G6';
const CONNECTOR = 'conn_01JHKAB6Q9T1V5X7Y9A1C3F5H7';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
/** Tables every fixture of that database holds rows in, so "the rows survived" is never vacuous. */
const SEEDED: Record<DatabaseName, string[]> = {
  control: ['users', 'organizations', 'members', 'websites', 'connectors', 'api_keys', 'jobs', 'idempotency', 'nonces'],
  graph: ['raw_items'],
  inbox: ['inbox_items'],
};

/** The knowledge search index and FTS5's tables under it: derived from the record tables, which a migration may index again (graph 0004, docs/knowledge.md). */
const REBUILT_FROM_RECORDS = /^search_/;

/**
 * Added columns a migration fills for the rows already there instead of leaving its default, with
 * what each value must look like: control 0011 gives every waiting invitation an id.
 */
const BACKFILLED: Record<string, RegExp> = { 'organization_invitations.id': /^inv_[0-9A-HJKMNP-TV-Z]{26}$/ };

async function importMigrationFiles(database: string): Promise<Array<{ file: string; migration: Migration }>> {
  const files = readdirSync(migrationsDir(database))
    .filter((f) => MIGRATION_FILE.test(f))
    .sort();
  return Promise.all(
    files.map(async (file) => ({
      file,
      migration: ((await import(join(migrationsDir(database), file))) as { migration: Migration }).migration,
    })),
  );
}

interface TableSnapshot {
  columns: string[];
  rows: Array<Record<string, unknown>>;
}

const byJson = (a: unknown, b: unknown) => JSON.stringify(a).localeCompare(JSON.stringify(b));

/** Every table's columns and rows (in a fixed order), for comparing a file before and after it migrates. */
function readTables(db: Db): Map<string, TableSnapshot> {
  const tables = db
    .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
    .pluck()
    .all() as string[];
  return new Map(
    tables.map((table) => {
      const columns = db.prepare('SELECT name FROM pragma_table_info(?) ORDER BY cid').pluck().all(table) as string[];
      const rows = (db.prepare(`SELECT * FROM "${table}"`).all() as Array<Record<string, unknown>>).sort(byJson);
      return [table, { columns, rows }];
    }),
  );
}

/** The schema as SQLite stores it, whitespace collapsed: indentation in a migration file is not schema. */
function readSchema(db: Db): string[] {
  const rows = db.prepare(`SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name`).all() as Array<{
    type: string;
    name: string;
    tbl_name: string;
    sql: string | null;
  }>;
  return rows.map((r) => `${r.type} ${r.name} ON ${r.tbl_name}: ${(r.sql ?? '').replace(/\s+/g, ' ')}`);
}

/** The value SQLite gives a column nobody wrote (its declared DEFAULT, else NULL). */
function defaultOf(db: Db, table: string, column: string): unknown {
  const declared = db
    .prepare('SELECT dflt_value FROM pragma_table_info(?) WHERE name = ?')
    .pluck()
    .get(table, column) as string | null;
  return declared === null ? null : db.prepare(`SELECT ${declared}`).pluck().get();
}

/** Columns named like times (`*_at`, `*_until`, `*_start`) that migrations after `released` add with a type other than INTEGER. */
function nonIntegerTimeColumns(migrations: readonly Migration[], released: number): string[] {
  const columnsOf = (db: Db) =>
    new Map(
      (
        db
          .prepare(
            `SELECT m.name || '.' || c.name AS col, c.type FROM sqlite_master m, pragma_table_info(m.name) c WHERE m.type = 'table'`,
          )
          .all() as Array<{ col: string; type: string }>
      ).map((r) => [r.col, r.type]),
    );
  const before = openDatabase(':memory:', { migrations: migrations.slice(0, released) });
  const after = openDatabase(':memory:', { migrations });
  const old = columnsOf(before);
  const added = [...columnsOf(after)]
    .filter(([col, type]) => !old.has(col) && /_(at|until|start)$/.test(col) && type !== 'INTEGER')
    .map(([col]) => col);
  before.close();
  after.close();
  return added.sort();
}

describe('migration files', () => {
  describe.each(DATABASES)('$database', ({ database, migrations }) => {
    it('each file is NNNN-name.ts (or the index), numbered 1, 2, 3, ... without gaps or repeats, and declares the version and name of its file name', async () => {
      const strays = readdirSync(migrationsDir(database)).filter((f) => f !== 'index.ts' && !MIGRATION_FILE.test(f));
      expect(strays, 'files the index cannot list').toEqual([]);
      const files = await importMigrationFiles(database);
      expect(files.map(({ file }) => Number(file.slice(0, 4)))).toEqual(files.map((_, i) => i + 1));
      for (const { file, migration } of files) {
        const [, number, slug] = MIGRATION_FILE.exec(file)!;
        expect({ file, version: migration.version, name: migration.name.replaceAll(' ', '-') }).toEqual({
          file,
          version: Number(number),
          name: slug,
        });
      }
    });

    it('the index lists every file of the folder, once, in number order', async () => {
      const files = await importMigrationFiles(database);
      // Positions in the folder of what the index lists: the same objects, so a file left out or listed twice shows.
      expect(migrations.map((m) => files.findIndex((f) => f.migration === m))).toEqual(files.map((_, i) => i));
      expect(latestVersion(migrations)).toBe(files.length);
    });

    it('a fixture database exists for every schema version (scripts/make-migration-fixture.mjs)', () => {
      const versions = FIXTURES.filter((f) => f.database === database)
        .map((f) => f.version)
        .sort((a, b) => a - b);
      expect(versions).toEqual(migrations.map((m) => m.version));
    });
  });

  it('openDatabase refuses a list with a gap or with two migrations of one number (two features that took the same number)', () => {
    const step = (version: number, name: string): Migration => ({
      version,
      name,
      up: (db) => db.exec(`CREATE TABLE ${name} (x INTEGER)`),
    });
    expect(() => openDatabase(':memory:', { migrations: [step(1, 'a'), step(3, 'c')] })).toThrowError(
      /numbered 1, 2, 3, .* versions 1, 3\./,
    );
    expect(() => openDatabase(':memory:', { migrations: [step(1, 'a'), step(2, 'b'), step(2, 'b2')] })).toThrowError(
      /versions 1, 2, 2\./,
    );
    expect(() => openDatabase(':memory:', { migrations: [step(2, 'b'), step(1, 'a')] })).toThrowError(
      /versions 2, 1\./,
    );
  });

  it('one time format: a time column added to control.sqlite after 0003 is INTEGER milliseconds since the epoch', () => {
    expect(nonIntegerTimeColumns(CONTROL_MIGRATIONS, 3)).toEqual([]);
    // The check itself sees an ISO text time in a new table or a new column.
    const textTimes: Migration = {
      version: CONTROL_MIGRATIONS.length + 1,
      name: 'text times',
      up: (db) =>
        db.exec(
          'CREATE TABLE text_time_probe (id TEXT PRIMARY KEY, created_at TEXT NOT NULL, expires_at INTEGER NOT NULL); ALTER TABLE users ADD COLUMN last_login_at TEXT',
        ),
    };
    expect(nonIntegerTimeColumns([...CONTROL_MIGRATIONS, textTimes], 3)).toEqual([
      'text_time_probe.created_at',
      'users.last_login_at',
    ]);
  });
});

describe('databases made by earlier releases', () => {
  const temps: Array<() => void> = [];
  const open: Array<{ close(): void }> = [];
  afterEach(() => {
    open.splice(0).forEach((db) => db.close());
    temps.splice(0).forEach((cleanup) => cleanup());
  });

  /** Copies a fixture into a fresh data directory where the current code looks for that database. */
  function placeFixture(fixture: (typeof FIXTURES)[number]): { root: string; file: string } {
    const temp = makeTempDir();
    temps.push(temp.cleanup);
    const layout = dataDirLayout(temp.dir);
    const file = {
      control: layout.controlDb,
      graph: graphDbPath(layout, WEBSITE),
      inbox: graphInboxPath(layout, WEBSITE),
    }[fixture.database];
    mkdirSync(join(file, '..'), { recursive: true });
    copyFileSync(join(DATA_DIR, fixture.file), file);
    return { root: temp.dir, file };
  }

  /** Opens it as nodectl does: openControlDb for control.sqlite, the graph pool for a graph or inbox file. */
  function openWithCurrentCode(database: DatabaseName, root: string): Db {
    const layout = dataDirLayout(root);
    if (database === 'control') {
      const db = openControlDb(layout);
      open.push(db);
      return db;
    }
    const pool = new GraphDbPool(layout);
    open.push({ close: () => pool.closeAll() });
    return database === 'graph' ? pool.get(WEBSITE) : pool.inbox(WEBSITE);
  }

  it.each(FIXTURES)(
    '$file migrates to the latest version: every row kept, added columns at their defaults, the same schema as a new file',
    ({ database, version, ...fixture }) => {
      const { root, file } = placeFixture({ database, version, ...fixture });
      const raw = new Database(file, { readonly: true });
      expect(raw.pragma('user_version', { simple: true })).toBe(version);
      const before = readTables(raw);
      raw.close();
      for (const table of SEEDED[database])
        expect(before.get(table)?.rows.length ?? 0, `rows in ${table}`).toBeGreaterThan(0);

      const db = openWithCurrentCode(database, root);
      const migrations = migrationsOf(database);
      expect(db.pragma('user_version', { simple: true })).toBe(latestVersion(migrations));
      const after = readTables(db);
      for (const [table, old] of before) {
        if (database === 'graph' && REBUILT_FROM_RECORDS.test(table)) continue;
        const now = after.get(table);
        expect(now, `table ${table}`).toBeDefined();
        const added = now!.columns.filter((c) => !old.columns.includes(c));
        const project = (row: Record<string, unknown>, columns: string[]) =>
          Object.fromEntries(columns.map((c) => [c, row[c]]));
        expect(now!.rows.map((row) => project(row, old.columns)).sort(byJson), `rows of ${table}`).toEqual(old.rows);
        const filled = added.filter((c) => BACKFILLED[`${table}.${c}`]);
        const defaulted = added.filter((c) => !filled.includes(c));
        const defaults = Object.fromEntries(defaulted.map((c) => [c, defaultOf(db, table, c)]));
        for (const row of now!.rows) {
          expect(project(row, defaulted), `added columns of ${table}`).toEqual(defaults);
          for (const c of filled) expect(row[c], `backfilled ${table}.${c}`).toMatch(BACKFILLED[`${table}.${c}`]!);
        }
      }
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(db.pragma('foreign_key_check')).toEqual([]);
      // A released migration file edited afterwards would make old files differ from new ones.
      const fresh = openDatabase(':memory:', { migrations });
      expect(readSchema(db), 'schema of the migrated file and of a new one (was a released migration edited?)').toEqual(
        readSchema(fresh),
      );
      fresh.close();
    },
  );

  it.each(FIXTURES.filter((f) => f.database === 'control'))(
    '$file after migrating: the current code signs in its user and API key, lists its connector, replays its idempotency record and claims its job',
    async (fixture) => {
      const { root } = placeFixture(fixture);
      const db = openWithCurrentCode('control', root);
      expect(listUsers(db)).toEqual([
        { id: 'usr_01JHKAB3M6Q8R2T4V6X8Z0C2E4', email: 'owner@example.com', createdAt: '2025-01-15T09:30:00.000Z' },
      ]);
      expect(
        await verifyPassword(
          'correct-horse-battery',
          db.prepare('SELECT password_hash FROM users').pluck().get() as string,
        ),
      ).toBe(true);
      expect(resolveApiKey(db, 'nk_live_Mig7FixtureKey0a1b2c3d4e5f6g7h8')).toMatchObject({
        name: 'ci deploy',
        role: 'editor',
        revokedAt: null,
      });
      expect(listWebsites(db)).toMatchObject([{ id: WEBSITE, domain: 'example.com', defaultLanguage: 'en' }]);
      expect(listConnectors(db)).toMatchObject([
        { id: CONNECTOR, status: 'active', scope: { websiteId: WEBSITE, sourceTypes: ['page', 'post', 'product'] } },
      ]);

      const store = createSqliteIdempotencyStore(db);
      const now = T0 + 14 * MINUTE; // both records still live
      const everyOwnerGone = { ttlMs: 5 * MINUTE, owner: 'test:1:01JHKZZZZZZZZZZZZZZZZZZZZZ', isOwnerGone: () => true };
      await expect(
        store.begin(CONNECTOR, 'batch-0001', sha256('batch-0001 body'), now, everyOwnerGone),
      ).resolves.toMatchObject({ outcome: 'replay', statusCode: 200 });
      // An in-flight record written before 0003 has no owner (NULL): it is never judged abandoned, only its lease ends it.
      const inFlight = await store.begin(CONNECTOR, 'batch-0002', sha256('batch-0002 body'), now, everyOwnerGone);
      expect(inFlight.outcome).toBe(fixture.version < 3 ? 'in_flight' : 'started');

      const job = new JobQueue(db, { now: () => T0 + 30 * MINUTE }).claim('test-worker');
      expect(job).toMatchObject({ kind: 'content.ingest', state: 'running', payload: { website_id: WEBSITE } });
    },
  );

  it('graph-v1.sqlite after migrating: the current extractor processes its pending item into knowledge records', () => {
    const { root } = placeFixture(FIXTURES.find((f) => f.file === 'graph-v1.sqlite')!);
    const db = openWithCurrentCode('graph', root);
    const site: WebsiteInfo = {
      websiteId: WEBSITE,
      domain: 'example.com',
      brand: 'Example',
      defaultLanguage: 'en',
      plan: 'pro',
      verification: { method: 'dns_txt', state: 'verified' },
      aliases: ['www.example.com'],
    };
    const result = processRawItems(db, site, ['raw_01JHKABCX5A7B1D3E5G7J9N1Q3'], { now: '2025-01-15T09:45:00.000Z' });
    expect(result).toMatchObject({ processed: 1, failed: 0 });
    expect([...new SqliteGraphReader(db).entities('en')].map((e) => e.name)).toContain('City Bike');
  });

  it('a data directory whose control.sqlite a newer nodectl wrote is refused, and left as it was', () => {
    const newer = latestVersion(CONTROL_MIGRATIONS) + 1;
    const { root, file } = placeFixture(FIXTURES.filter((f) => f.database === 'control').at(-1)!);
    const raw = new Database(file);
    raw.pragma(`user_version = ${newer}`);
    const before = readTables(raw);
    raw.close();
    expect(() => openControlDb(dataDirLayout(root))).toThrowError(SchemaTooNewError);
    const reread = new Database(file, { readonly: true });
    expect(reread.pragma('user_version', { simple: true })).toBe(newer);
    expect(readTables(reread)).toEqual(before);
    reread.close();
  });
});
