import { afterEach, describe, expect, it } from 'vitest';
import { POSTGRES_MIGRATIONS } from '../../../src/platform/storage/migrations/postgres/index.js';
import { openPostgresControlStore } from '../../../src/platform/storage/postgres-control.js';
import {
  connectPostgres,
  PostgresSchemaTooNewError,
  type PostgresStore,
} from '../../../src/platform/storage/postgres.js';
import { CONTROL_MIGRATIONS } from '../../../src/platform/storage/control-schema.js';
import { openDatabase } from '../../../src/platform/storage/sqlite.js';
import { controlTableNames } from '../../helpers/control-tables.js';
import { createTestDatabase } from '../../helpers/postgres.js';

/** The PostgreSQL control store's migrations (src/platform/storage/postgres.ts migratePostgres) on a real server. */
const opened: PostgresStore[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});
function open(...args: Parameters<typeof connectPostgres>): PostgresStore {
  const store = connectPostgres(...args);
  opened.push(store);
  return store;
}

const tables = async (store: PostgresStore) =>
  (
    await store.query<{ name: string }>(
      `SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename COLLATE "C"`,
    )
  ).rows.map((r) => r.name);

describe('PostgreSQL control store migrations', () => {
  it('are numbered 1, 2, 3, ... each in its own NNNN-name file', () => {
    expect(POSTGRES_MIGRATIONS.map((m) => m.version)).toEqual(POSTGRES_MIGRATIONS.map((_, i) => i + 1));
  });

  it('create every control table of control.sqlite at the first use, and record each version once, however many daemons start at once', async () => {
    const url = await createTestDatabase();
    const stores = Array.from({ length: 4 }, () => open(url, { migrations: POSTGRES_MIGRATIONS }));
    await Promise.all(stores.map((store) => store.ready()));
    const sqlite = openDatabase(':memory:', { migrations: CONTROL_MIGRATIONS });
    const sqliteTables = controlTableNames(sqlite);
    sqlite.close();
    expect(await tables(stores[0]!)).toEqual([...sqliteTables, 'nodectl_schema'].sort());
    const applied = await stores[1]!.query<{ version: number; name: string }>(
      'SELECT version, name FROM nodectl_schema ORDER BY version',
    );
    expect(applied.rows).toEqual(POSTGRES_MIGRATIONS.map((m) => ({ version: m.version, name: m.name })));
  });

  it('apply only the newer steps to an older schema, and leave it whole when a step fails', async () => {
    const url = await createTestDatabase();
    await open(url, { migrations: POSTGRES_MIGRATIONS.slice(0, 2) }).ready();
    const broken = [...POSTGRES_MIGRATIONS.slice(0, 3), { version: 4, name: 'broken', sql: 'CREATE TABLE x (' }];
    await expect(open(url, { migrations: broken }).ready()).rejects.toThrow(/syntax error/);
    const store = open(url, { migrations: POSTGRES_MIGRATIONS.slice(0, 2) });
    expect(await tables(store)).toEqual(['idempotency', 'nodectl_schema', 'nonces']);
    const full = open(url, { migrations: POSTGRES_MIGRATIONS });
    await full.ready();
    expect(await tables(full)).toContain('rate_limits');
  });

  it('refuse a schema newer than this nodectl knows, saying to upgrade', async () => {
    const url = await createTestDatabase();
    await openPostgresControlStore(url)
      .ready()
      .then(() => undefined);
    const older = open(url, { migrations: POSTGRES_MIGRATIONS.slice(0, 1) });
    await expect(older.ready()).rejects.toThrow(PostgresSchemaTooNewError);
    await expect(older.query('SELECT 1')).rejects.toThrow(/only knows versions up to 1.*upgrade nodectl/);
  });

  it('report an unreachable server on use and mask the password in what they show', async () => {
    const server = new URL(await createTestDatabase());
    server.password = 'hunter2';
    server.pathname = '/no_such_database';
    const store = open(server.toString(), { migrations: POSTGRES_MIGRATIONS });
    expect(store.displayUrl).not.toContain('hunter2');
    await expect(store.query('SELECT 1')).rejects.toThrow(/no_such_database/);
  });
});
