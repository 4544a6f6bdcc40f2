import type { Pool, PoolClient } from 'pg';
import { redactUrlPassword } from '../config/index.js';

/** One forward-only step of the PostgreSQL control store's schema (migrations/postgres/index.ts). */
export interface PostgresMigration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/** The rows and row count of one statement. */
export interface PostgresResult<R> {
  rows: R[];
  rowCount: number;
}

/** Runs one parameterized statement (`$1`, `$2`, ...): values never enter the SQL text. */
export type PostgresQuery = <R = Record<string, unknown>>(
  text: string,
  params?: readonly unknown[],
) => Promise<PostgresResult<R>>;

/**
 * The PostgreSQL control store (controlStore = postgres://...): a pool that connects and brings
 * the schema up to date at its first use, so a CLI command that never touches the shared state
 * never connects. A failed start is retried at the next use (the server may come back).
 */
export interface PostgresStore {
  /** The URL with its password masked, for logs. */
  readonly displayUrl: string;
  readonly query: PostgresQuery;
  /** Runs `fn` in one transaction on one connection: COMMIT when it resolves, ROLLBACK when it throws. */
  transaction<T>(fn: (query: PostgresQuery) => Promise<T>): Promise<T>;
  /** Connects and migrates now: the daemon awaits it at start, so a bad URL fails there. */
  ready(): Promise<void>;
  /** Ends the pool once the statements under way finish (idempotent); resolves when it is closed. */
  close(): Promise<void>;
}

/** The schema's version is newer than this nodectl knows (a newer nodectl migrated it). */
export class PostgresSchemaTooNewError extends Error {
  constructor(displayUrl: string, found: number, supported: number) {
    super(
      `The control store ${displayUrl} has schema version ${found}, but this nodectl only knows versions up to ${supported}. ` +
        'It was migrated by a newer nodectl: upgrade nodectl on every machine that shares it.',
    );
    this.name = 'PostgresSchemaTooNewError';
  }
}

// Any constant will do: every nodectl migrating the same database takes the same lock.
const MIGRATION_LOCK = 4_141_041;

const SCHEMA_TABLE = `CREATE TABLE IF NOT EXISTS nodectl_schema (
  version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`;

/**
 * The statements that bring a database's schema up to date, in order, given a way to run one
 * (awaited or not: the pool's client and the control Db's synchronous connection both use it):
 * one transaction under an advisory lock, so daemons starting at once wait for each other and a
 * failed step leaves the old schema whole (PostgreSQL's DDL is transactional). The version is
 * kept in nodectl_schema.
 */
export function* migrationSteps(
  migrations: readonly PostgresMigration[],
  displayUrl: string,
): Generator<{ text: string; values?: unknown[] }, void, { rows: Array<{ v?: unknown }> }> {
  migrations.forEach((m, i) => {
    if (m.version !== i + 1)
      throw new Error(`PostgreSQL migrations must be numbered 1, 2, 3, ... in list order; found ${m.version} at ${i}`);
  });
  yield { text: 'SELECT pg_advisory_xact_lock($1)', values: [MIGRATION_LOCK] };
  yield { text: SCHEMA_TABLE };
  const found = Number((yield { text: 'SELECT max(version) AS v FROM nodectl_schema' }).rows[0]?.v ?? 0);
  if (found > migrations.length) throw new PostgresSchemaTooNewError(displayUrl, found, migrations.length);
  for (const migration of migrations.slice(found)) {
    yield { text: migration.sql };
    yield {
      text: 'INSERT INTO nodectl_schema (version, name) VALUES ($1, $2)',
      values: [migration.version, migration.name],
    };
  }
}

/** Applies the migrations newer than the database's version (migrationSteps) on the pool's client. */
export async function migratePostgres(
  client: PoolClient,
  migrations: readonly PostgresMigration[],
  displayUrl: string,
): Promise<void> {
  await client.query('BEGIN');
  try {
    const steps = migrationSteps(migrations, displayUrl);
    let step = steps.next();
    while (!step.done) {
      const result = await client.query(step.value.text, step.value.values);
      step = steps.next(result as { rows: Array<{ v?: unknown }> });
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}

export interface ConnectPostgresOptions {
  migrations: readonly PostgresMigration[];
  /** Connections the pool keeps at most; default 10. */
  maxConnections?: number;
}

export function connectPostgres(url: string, options: ConnectPostgresOptions): PostgresStore {
  const displayUrl = redactUrlPassword(url);
  let started: Promise<Pool> | undefined;
  let closed: Promise<void> | undefined;
  const pool = (): Promise<Pool> => {
    if (closed) return Promise.reject(new Error(`the control store ${displayUrl} is closed`));
    started ??= (async () => {
      // Loaded here, not at the top: the SQLite default never loads the driver.
      const pg = (await import('pg')).default;
      const created = new pg.Pool({
        connectionString: url,
        max: options.maxConnections ?? 10,
        allowExitOnIdle: true,
        connectionTimeoutMillis: 10_000,
      });
      // An idle connection the server drops is replaced at the next checkout; the error is not the caller's.
      created.on('error', () => {});
      try {
        const client = await created.connect();
        try {
          await migratePostgres(client, options.migrations, displayUrl);
        } finally {
          client.release();
        }
      } catch (error) {
        started = undefined;
        await created.end().catch(() => {});
        throw error;
      }
      return created;
    })();
    return started;
  };
  // What close() waits for: a rate-limit flush begun just before it still reaches the server.
  const inFlight = new Set<Promise<unknown>>();
  const track = <T>(work: Promise<T>): Promise<T> => {
    inFlight.add(work);
    void work.then(
      () => inFlight.delete(work),
      () => inFlight.delete(work),
    );
    return work;
  };
  const query: PostgresQuery = (text, params) =>
    track(
      (async () => {
        const result = await (await pool()).query(text, params as unknown[] | undefined);
        return { rows: result.rows, rowCount: result.rowCount ?? 0 };
      })(),
    );
  const transaction = async <T>(fn: (query: PostgresQuery) => Promise<T>): Promise<T> => {
    const client = await (await pool()).connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await fn(async (text, params) => {
        const r = await client.query(text, params as unknown[] | undefined);
        return { rows: r.rows, rowCount: r.rowCount ?? 0 };
      });
      await client.query('COMMIT');
      return result;
    } catch (error) {
      // A connection that cannot even roll back is closed, not given to the next caller.
      await client.query('ROLLBACK').catch((rollbackError: Error) => void (broken = rollbackError));
      throw error;
    } finally {
      client.release(broken);
    }
  };
  return {
    displayUrl,
    query,
    transaction: (fn) => track(transaction(fn)),
    async ready() {
      await pool();
    },
    close() {
      closed ??= (async () => {
        await Promise.allSettled([...inFlight]);
        const running = started;
        if (running) await (await running.catch(() => undefined))?.end();
      })();
      return closed;
    },
  };
}
