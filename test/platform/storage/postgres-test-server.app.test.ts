import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createTestDatabase, postgresServerUrl } from '../../helpers/postgres.js';

/** The throw-away PostgreSQL of the tests (test/setup/postgres.ts): one server, a database per use. */
describe('the test PostgreSQL', () => {
  it('is a real server on loopback, and each test database starts empty and apart', async () => {
    const server = await postgresServerUrl();
    expect(server).toMatch(/^postgres:\/\/nodectl@127\.0\.0\.1:\d+\/postgres$/);
    const [a, b] = await Promise.all([createTestDatabase(), createTestDatabase()]);
    expect(a).not.toBe(b);
    const client = new pg.Client({ connectionString: a });
    await client.connect();
    try {
      expect((await client.query<{ v: string }>('SHOW server_version_num')).rows[0]).toBeDefined();
      await client.query('CREATE TABLE t (x int)');
    } finally {
      await client.end();
    }
    const other = new pg.Client({ connectionString: b });
    await other.connect();
    try {
      const tables = await other.query("SELECT 1 FROM pg_tables WHERE schemaname = 'public'");
      expect(tables.rowCount).toBe(0);
    } finally {
      await other.end();
    }
  });
});
