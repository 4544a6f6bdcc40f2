import { POSTGRES_MIGRATIONS } from './migrations/postgres/index.js';
import { connectPostgres, type PostgresStore } from './postgres.js';

/** The PostgreSQL control store at `url`, with the schema of migrations/postgres/ (as control.ts is for SQLite). */
export function openPostgresControlStore(url: string): PostgresStore {
  return connectPostgres(url, { migrations: POSTGRES_MIGRATIONS });
}
