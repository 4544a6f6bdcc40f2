import { afterEach, describe, expect, it } from 'vitest';
import { CONTROL_MIGRATIONS } from '../../../src/platform/storage/control-schema.js';
import { ControlStoreUnavailableError, openPostgresControlDb } from '../../../src/platform/storage/postgres-sync.js';
import { openDatabase, type Db } from '../../../src/platform/storage/sqlite.js';
import { controlTableNames } from '../../helpers/control-tables.js';
import { createTestDatabase } from '../../helpers/postgres.js';

/**
 * The control database on PostgreSQL (src/platform/storage/postgres-sync.ts) on a real server:
 * better-sqlite3's synchronous API, its transactions, its error codes, and control.sqlite's schema.
 * The control plane's own tests run on it too (the app-postgres project).
 */
const opened: Db[] = [];
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
});
async function open(url?: string, timeoutMs?: number): Promise<Db> {
  const at = url ?? (await createTestDatabase());
  const db = openPostgresControlDb(at, { displayUrl: at, ...(timeoutMs ? { timeoutMs } : {}) });
  opened.push(db);
  return db;
}

const ORG = ['org_1', 'One', 'one', 'free', '2026-01-01T00:00:00.000Z'] as const;
const insertOrg = (db: Db, values: readonly unknown[] = ORG) =>
  db.prepare('INSERT INTO organizations (id, name, slug, plan, created_at) VALUES (?, ?, ?, ?, ?)').run(...values);

describe('the control database on PostgreSQL', () => {
  it("has control.sqlite's tables and columns, in the same types' families", async () => {
    const db = await open();
    const sqlite = openDatabase(':memory:', { migrations: CONTROL_MIGRATIONS });
    const family = (type: string) =>
      /int/i.test(type) ? 'integer' : /real|double/i.test(type) ? 'real' : /blob|bytea/i.test(type) ? 'bytes' : 'text';
    const sqliteColumns = sqlite
      .prepare(
        `SELECT m.name AS t, c.name AS c, c.type AS type FROM sqlite_master m, pragma_table_info(m.name) c
         WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%'`,
      )
      .all() as Array<{ t: string; c: string; type: string }>;
    const postgresColumns = db
      .prepare(
        `SELECT table_name AS t, column_name AS c, data_type AS type FROM information_schema.columns
         WHERE table_schema = current_schema() AND table_name <> 'nodectl_schema' AND column_name <> 'rowid'`,
      )
      .all() as Array<{ t: string; c: string; type: string }>;
    const shape = (rows: Array<{ t: string; c: string; type: string }>) =>
      rows.map((r) => `${r.t}.${r.c} ${family(r.type === 'USER-DEFINED' ? 'text' : r.type)}`).sort();
    expect(controlTableNames(db)).toEqual(controlTableNames(sqlite));
    expect(shape(postgresColumns)).toEqual(shape(sqliteColumns));
    sqlite.close();
  });

  it('answers get, all, run, pluck and named parameters as better-sqlite3 does: numbers as numbers, names as written', async () => {
    const db = await open();
    expect(insertOrg(db)).toEqual({ changes: 1, lastInsertRowid: 0 });
    insertOrg(db, ['org_2', 'Two', 'two', 'pro', '2026-01-02T00:00:00.000Z']);
    expect(db.prepare('SELECT id, created_at AS createdAt FROM organizations WHERE slug = ?').get('one')).toEqual({
      id: 'org_1',
      createdAt: '2026-01-01T00:00:00.000Z',
    });
    expect(db.prepare('SELECT id FROM organizations WHERE slug = ?').get('none')).toBeUndefined();
    expect(db.prepare('SELECT COUNT(*) AS n, SUM(length(id)) AS s FROM organizations').get()).toEqual({ n: 2, s: 10 });
    expect(db.prepare('SELECT id FROM organizations ORDER BY id').pluck().all()).toEqual(['org_1', 'org_2']);
    expect(db.prepare('SELECT id = :id AS same FROM organizations WHERE id = :id').get({ id: 'org_2' })).toEqual({
      same: 1,
    });
    expect(db.prepare('UPDATE organizations SET plan = ? WHERE plan = ?').run('business', 'free').changes).toBe(1);
    expect(() => db.prepare('SELECT 1 FROM organizations WHERE id = ?').get(true)).toThrow(/can only bind/);
    expect(() => db.prepare('SELECT 1 FROM organizations WHERE id = ?').get()).toThrow(/Too few parameter/);
  });

  it("reports constraint failures with SQLite's codes, which the control code tells apart", async () => {
    const db = await open();
    insertOrg(db);
    const codeOf = (write: () => unknown) => {
      try {
        write();
      } catch (error) {
        return (error as { code?: string }).code;
      }
      return 'no error';
    };
    expect(codeOf(() => insertOrg(db))).toBe('SQLITE_CONSTRAINT_PRIMARYKEY');
    expect(codeOf(() => insertOrg(db, ['org_9', 'Nine', 'one', 'free', 'x']))).toBe('SQLITE_CONSTRAINT_UNIQUE');
    expect(codeOf(() => insertOrg(db, ['org_8', 'Eight', 'eight', 'gold', 'x']))).toBe('SQLITE_CONSTRAINT_CHECK');
    expect(
      codeOf(() =>
        db
          .prepare('INSERT INTO websites (id, organization_id, domain, name, created_at) VALUES (?, ?, ?, ?, ?)')
          .run('web_1', 'org_none', 'a.example', 'A', 'x'),
      ),
    ).toBe('SQLITE_CONSTRAINT_FOREIGNKEY');
  });

  it('commits a transaction whole or not at all; a nested one rolls back alone; a promise is refused', async () => {
    const db = await open();
    const count = () => db.prepare('SELECT COUNT(*) FROM organizations').pluck().get();
    expect(() =>
      db.transaction(() => {
        insertOrg(db);
        throw new Error('the change failed');
      })(),
    ).toThrow('the change failed');
    expect(count()).toBe(0);
    db.transaction(() => {
      insertOrg(db);
      expect(db.inTransaction).toBe(true);
      expect(() =>
        db.transaction(() => {
          insertOrg(db, ['org_2', 'Two', 'two', 'pro', 'x']);
          throw new Error('inner');
        })(),
      ).toThrow('inner');
    }).immediate();
    expect(db.inTransaction).toBe(false);
    expect(db.prepare('SELECT id FROM organizations').pluck().all()).toEqual(['org_1']);
    expect(() => db.transaction(() => Promise.resolve(1))()).toThrow(/cannot return a promise/);
    expect(count()).toBe(1);
  });

  it("takes turns with another daemon's control writes: a transaction waits for the other's to end", async () => {
    const url = await createTestDatabase();
    const first = await open(url);
    const second = await open(url, 500);
    first.transaction(() => {
      insertOrg(first);
      // Same thread: the second cannot get the write lock until the first commits, so it times out.
      expect(() => second.transaction(() => insertOrg(second, ['org_2', 'Two', 'two', 'pro', 'x']))()).toThrow(
        ControlStoreUnavailableError,
      );
    })();
    second.transaction(() => insertOrg(second, ['org_3', 'Three', 'three', 'pro', 'x']))();
    expect(first.prepare('SELECT id FROM organizations ORDER BY id').pluck().all()).toEqual(['org_1', 'org_3']);
  });

  it('fails as unavailable, naming the store without its password, when PostgreSQL cannot be reached', async () => {
    const url = new URL(await createTestDatabase());
    url.port = '1';
    url.password = 'hunter2';
    const display = url.toString().replace('hunter2', '***');
    expect(() => openPostgresControlDb(url.toString(), { displayUrl: display })).toThrow(
      expect.objectContaining({
        name: 'ControlStoreUnavailableError',
        message: expect.not.stringContaining('hunter2'),
      }),
    );
  });
});
