import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';
import { AppError } from '../errors/index.js';
import { workerModuleUrl } from '../threads/index.js';
import { POSTGRES_MIGRATIONS } from './migrations/postgres/index.js';
import { migrationSteps, type PostgresMigration } from './postgres.js';
import type { SyncReply, SyncRequest } from './postgres-sync-worker.js';
import type { Db } from './sqlite.js';
import { toPostgres, type TranslatedStatement } from './sql-dialect.js';

/**
 * The control database on PostgreSQL, with better-sqlite3's synchronous API (issue 41): the
 * control plane's code, its statements (translated by sql-dialect.ts) and its transactions run
 * unchanged on either store. A statement goes to a worker thread that holds the connection, and
 * the calling thread waits on shared memory for its answer, as it waits for SQLite's disk today:
 * a transaction is a function with no await in it, so nothing else runs on this connection
 * between its statements. Every top-level transaction takes one advisory lock, so control writers
 * take turns across every daemon as they take turns on control.sqlite; reads outside a transaction
 * run beside them. docs/decisions.md says why this and not an async query builder.
 */

/** The statement could not run because PostgreSQL could not be reached: a retryable 503 to a client. */
export class ControlStoreUnavailableError extends AppError {
  constructor(displayUrl: string, reason: string) {
    super('service.unavailable', `The control store ${displayUrl} cannot be reached (${reason}); retry shortly.`);
    this.name = 'ControlStoreUnavailableError';
  }
}

// Any constant will do: every daemon sharing the database takes the same lock for a control write.
const CONTROL_WRITE_LOCK = 4_141_042;

/** SQLite's codes for PostgreSQL's constraint errors, the ones the control code tells apart. */
function sqliteCodeOf(code: string | undefined, constraint: string | undefined): string | undefined {
  switch (code) {
    case '23505':
      return constraint?.endsWith('_pkey') ? 'SQLITE_CONSTRAINT_PRIMARYKEY' : 'SQLITE_CONSTRAINT_UNIQUE';
    case '23503':
      return 'SQLITE_CONSTRAINT_FOREIGNKEY';
    case '23514':
      return 'SQLITE_CONSTRAINT_CHECK';
    case '23502':
      return 'SQLITE_CONSTRAINT_NOTNULL';
    default:
      return undefined;
  }
}

export interface SyncPostgresOptions {
  /** The URL with its password masked, for messages. */
  displayUrl: string;
  /** How long one statement may take, connecting included, before it fails as unavailable. */
  timeoutMs?: number;
}

/** One connection, used synchronously: query() returns when PostgreSQL has answered. */
export class SyncPostgres {
  readonly #worker: Worker;
  readonly #port: MessageChannel['port1'];
  readonly #flag: Int32Array;
  readonly #timeoutMs: number;
  readonly displayUrl: string;
  #seq = 0;
  #closed = false;

  constructor(url: string, options: SyncPostgresOptions) {
    this.displayUrl = options.displayUrl;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    const signal = new SharedArrayBuffer(4);
    this.#flag = new Int32Array(signal);
    const { port1, port2 } = new MessageChannel();
    this.#port = port1;
    this.#worker = new Worker(workerModuleUrl(import.meta.url, 'postgres-sync-worker.js', 'The control store'), {
      workerData: { url, port: port2, signal, connectTimeoutMs: Math.min(this.#timeoutMs, 10_000) },
      transferList: [port2],
    });
    this.#worker.unref();
    this.#port.unref();
  }

  /** Set by PostgresControlDb between BEGIN and COMMIT or ROLLBACK. */
  inTransaction = false;

  query(text: string, values: readonly unknown[] = [], rowMode?: 'array'): { rows: unknown[]; rowCount: number } {
    if (this.#closed) throw new TypeError('The database connection is not open');
    const seq = ++this.#seq;
    const request: SyncRequest = { seq, text, values, rowMode, inTransaction: this.inTransaction };
    this.#port.postMessage(request);
    const deadline = Date.now() + this.#timeoutMs;
    for (;;) {
      const seen = Atomics.load(this.#flag, 0);
      if (seen === seq) break;
      const left = deadline - Date.now();
      if (left <= 0) throw new ControlStoreUnavailableError(this.displayUrl, `no answer in ${this.#timeoutMs} ms`);
      Atomics.wait(this.#flag, 0, seen, left);
    }
    for (;;) {
      const received = receiveMessageOnPort(this.#port);
      if (!received) throw new Error(`The control store's thread signalled statement ${seq} without its answer`);
      const reply = received.message as SyncReply;
      if (reply.seq !== seq) continue; // the late answer of a statement that timed out
      if ('error' in reply) {
        if (reply.error.connection) throw new ControlStoreUnavailableError(this.displayUrl, reply.error.message);
        throw Object.assign(new Error(reply.error.message), {
          code: sqliteCodeOf(reply.error.code, reply.error.constraint) ?? `POSTGRES_${reply.error.code ?? 'ERROR'}`,
          postgresCode: reply.error.code,
        });
      }
      return reply;
    }
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#port.close();
    void this.#worker.terminate();
  }
}

type Params = readonly unknown[];

/** The values of one call in `$n` order: positional arguments, or one object of named ones. */
function bind(statement: TranslatedStatement, sql: string, args: Params): unknown[] {
  const values =
    statement.names.length > 0
      ? statement.names.map((name) => {
          const bag = args[0] as Record<string, unknown> | undefined;
          if (!bag || typeof bag !== 'object' || !(name in bag))
            throw new RangeError(`Missing named parameter "${name}" of: ${sql}`);
          return bag[name];
        })
      : args.flat();
  if (statement.names.length === 0 && values.length !== statement.positional)
    throw new RangeError(`Too ${values.length < statement.positional ? 'few' : 'many'} parameter values were provided`);
  return values.map((value) => {
    if (
      value === undefined ||
      typeof value === 'boolean' ||
      (typeof value === 'object' && value !== null && !Buffer.isBuffer(value))
    )
      throw new TypeError('SQLite3 can only bind numbers, strings, bigints, buffers, and null');
    return typeof value === 'bigint' ? value.toString() : value;
  });
}

class PostgresStatement {
  #pluck = false;
  #raw = false;

  constructor(
    private readonly connection: SyncPostgres,
    private readonly sql: string,
    private readonly translated: TranslatedStatement,
  ) {}

  get source(): string {
    return this.sql;
  }

  pluck(toggle = true): this {
    this.#pluck = toggle;
    if (toggle) this.#raw = false;
    return this;
  }

  raw(toggle = true): this {
    this.#raw = toggle;
    if (toggle) this.#pluck = false;
    return this;
  }

  #query(args: Params): { rows: unknown[]; rowCount: number } {
    const rowMode = this.#pluck || this.#raw ? 'array' : undefined;
    return this.connection.query(this.translated.text, bind(this.translated, this.sql, args), rowMode);
  }

  #shape(row: unknown): unknown {
    return this.#pluck ? (row as unknown[])[0] : row;
  }

  get(...args: Params): unknown {
    const { rows } = this.#query(args);
    return rows.length === 0 ? undefined : this.#shape(rows[0]);
  }

  all(...args: Params): unknown[] {
    return this.#query(args).rows.map((row) => this.#shape(row));
  }

  iterate(...args: Params): IterableIterator<unknown> {
    return this.all(...args)[Symbol.iterator]();
  }

  run(...args: Params): { changes: number; lastInsertRowid: number } {
    return { changes: this.#query(args).rowCount, lastInsertRowid: 0 };
  }
}

/**
 * SQLite pragmas the control code reads or sets for SQLite's sake. On PostgreSQL they mean
 * nothing: setting one does nothing, and reading one answers what fits a store whose commits are
 * durable when they return (synchronous FULL, a rollback journal: no WAL syncs to batch).
 */
const NEUTRAL_PRAGMAS: Record<string, unknown> = {
  synchronous: 2,
  journal_mode: 'delete',
  secure_delete: 0,
  foreign_keys: 1,
  busy_timeout: 5000,
};

/**
 * A Db whose statements run on PostgreSQL: prepare (get, all, run, iterate, pluck, raw),
 * transaction (nested ones as savepoints), exec and the pragmas the control code uses. What
 * better-sqlite3 offers beyond that (backup, user functions) is refused with a message.
 */
export class PostgresControlDb {
  readonly #connection: SyncPostgres;
  readonly #statements = new Map<string, TranslatedStatement>();
  #depth = 0;
  readonly name: string;
  readonly memory = false;
  readonly readonly = false;

  constructor(connection: SyncPostgres) {
    this.#connection = connection;
    this.name = connection.displayUrl;
  }

  get open(): boolean {
    return !this.#closed;
  }

  #closed = false;

  get inTransaction(): boolean {
    return this.#depth > 0;
  }

  prepare(sql: string): PostgresStatement {
    let translated = this.#statements.get(sql);
    if (!translated) {
      translated = toPostgres(sql);
      this.#statements.set(sql, translated);
    }
    return new PostgresStatement(this.#connection, sql, translated);
  }

  exec(sql: string): this {
    this.#connection.query(toPostgres(sql).text);
    return this;
  }

  pragma(source: string, options?: { simple?: boolean }): unknown {
    const match = /^\s*(\w+)\s*(?:=\s*(.+?)\s*|\((.*)\))?\s*$/.exec(source);
    const name = match?.[1]?.toLowerCase() ?? '';
    if (name === 'wal_checkpoint') return options?.simple ? 0 : [];
    if (name in NEUTRAL_PRAGMAS) {
      if (match?.[2] !== undefined) return options?.simple ? undefined : [];
      return options?.simple ? NEUTRAL_PRAGMAS[name] : [{ [name]: NEUTRAL_PRAGMAS[name] }];
    }
    throw new Error(`PRAGMA ${name} is SQLite's: the control store on PostgreSQL has no such setting`);
  }

  transaction<A extends unknown[], R>(
    fn: (...args: A) => R,
  ): ((...args: A) => R) & {
    deferred: (...args: A) => R;
    immediate: (...args: A) => R;
    exclusive: (...args: A) => R;
  } {
    const run = (...args: A): R => this.#inTransaction(() => fn(...args));
    return Object.assign(run, { deferred: run, immediate: run, exclusive: run });
  }

  #inTransaction<R>(work: () => R): R {
    const connection = this.#connection;
    const savepoint = this.#depth > 0 ? `nodectl_${this.#depth}` : undefined;
    if (savepoint) connection.query(`SAVEPOINT ${savepoint}`);
    else {
      connection.query('BEGIN');
      connection.inTransaction = true;
      try {
        connection.query('SELECT pg_advisory_xact_lock($1)', [CONTROL_WRITE_LOCK]);
      } catch (error) {
        this.#rollback(undefined);
        throw error;
      }
    }
    this.#depth++;
    let result: R;
    try {
      result = work();
      if (result instanceof Promise) throw new TypeError('Transaction function cannot return a promise');
    } catch (error) {
      this.#depth--;
      this.#rollback(savepoint);
      throw error;
    }
    this.#depth--;
    if (savepoint) connection.query(`RELEASE SAVEPOINT ${savepoint}`);
    else {
      try {
        connection.query('COMMIT');
      } finally {
        connection.inTransaction = false;
      }
    }
    return result;
  }

  #rollback(savepoint: string | undefined): void {
    try {
      this.#connection.query(
        savepoint ? `ROLLBACK TO SAVEPOINT ${savepoint}; RELEASE SAVEPOINT ${savepoint}` : 'ROLLBACK',
      );
    } catch {
      // The connection broke: PostgreSQL rolls the transaction back when it goes.
    } finally {
      if (!savepoint) this.#connection.inTransaction = false;
    }
  }

  backup(): never {
    throw new Error(
      'The control store is on PostgreSQL: back it up with PostgreSQL tools (pg_dump), not nodectl backup',
    );
  }

  close(): this {
    this.#closed = true;
    this.#connection.close();
    return this;
  }
}

/** Brings the schema up to date on this connection (postgres.ts migrationSteps), in one transaction. */
export function migratePostgresSync(
  connection: SyncPostgres,
  migrations: readonly PostgresMigration[] = POSTGRES_MIGRATIONS,
): void {
  connection.query('BEGIN');
  try {
    const steps = migrationSteps(migrations, connection.displayUrl);
    let step = steps.next();
    while (!step.done)
      step = steps.next(connection.query(step.value.text, step.value.values) as { rows: Array<{ v?: unknown }> });
    connection.query('COMMIT');
  } catch (error) {
    try {
      connection.query('ROLLBACK');
    } catch {
      // The connection broke: PostgreSQL rolls the transaction back when it goes.
    }
    throw error;
  }
}

/** The control database at a `postgres://` URL, migrated, as a Db (the control code's type). */
export function openPostgresControlDb(url: string, options: SyncPostgresOptions): Db {
  const connection = new SyncPostgres(url, options);
  try {
    migratePostgresSync(connection);
  } catch (error) {
    connection.close();
    throw error;
  }
  return new PostgresControlDb(connection) as unknown as Db;
}

/** Whether `db` is the control database on PostgreSQL (for the few statements that differ by store). */
export function isPostgresDb(db: Db): boolean {
  return (db as unknown) instanceof PostgresControlDb;
}
