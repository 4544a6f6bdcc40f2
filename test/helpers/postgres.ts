import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { until } from './until.js';

/**
 * The run's throw-away PostgreSQL (test/setup/postgres.ts starts it at the first file's request):
 * its superuser URL, `postgres://nodectl@127.0.0.1:<port>/postgres`. Fails, never skips, when
 * PostgreSQL is missing: the message says how to install it.
 */
export async function postgresServerUrl(): Promise<string> {
  const folder = inject('postgresRendezvous');
  const url = join(folder, 'url');
  const error = join(folder, 'error');
  const watcher = watch(folder);
  try {
    if (!existsSync(url) && !existsSync(error)) writeFileSync(join(folder, 'request'), String(process.pid));
    await until(watcher, 'change', () => existsSync(url) || existsSync(error), 'the test PostgreSQL to start', 90_000);
  } finally {
    watcher.close();
  }
  if (existsSync(error)) throw new Error(`The test PostgreSQL did not start: ${readFileSync(error, 'utf8')}`);
  return readFileSync(url, 'utf8');
}

/**
 * A fresh, empty database on the run's PostgreSQL and its URL: a test (or a pair of "daemons")
 * gets tables no other test wrote to.
 */
export async function createTestDatabase(): Promise<string> {
  const server = await postgresServerUrl();
  const name = `t_${randomBytes(8).toString('hex')}`; // made here, never from input: safe to splice
  const client = new pg.Client({ connectionString: server });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(server);
  url.pathname = `/${name}`;
  return url.toString();
}
