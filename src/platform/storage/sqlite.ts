import Database from 'better-sqlite3';
import { closeSync, fchmodSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';

export type Db = Database.Database;

/** One forward-only schema step. `version` starts at 1 and has no gaps (assertMigrationSequence). */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly up: (db: Db) => void;
}

export class SchemaTooNewError extends Error {
  constructor(
    readonly file: string,
    readonly found: number,
    readonly supported: number,
  ) {
    super(
      `${file} has schema version ${found}, but this nodectl only knows versions up to ${supported}. ` +
        'It was written by a newer nodectl: upgrade nodectl, or point --data-dir at another folder.',
    );
    this.name = 'SchemaTooNewError';
  }
}

export interface OpenDatabaseOptions {
  /** Migrations to apply on open, numbered 1, 2, 3, ... in list order. */
  migrations: readonly Migration[];
  /** Open read-only (no migrations are applied; the schema must be current or older). */
  readonly?: boolean;
  /** How long a writer waits for another connection's lock before failing, in ms. Default 5000. */
  busyTimeoutMs?: number;
  /** Page size of a new file (SQLite ignores it once the file has tables); default SQLite's 4096. */
  pageSize?: number;
}

/**
 * Opens a SQLite file the way every nodectl database is opened: WAL so readers never block the
 * daemon's writer, synchronous=FULL so an acknowledged write survives power loss (docs/contract.md#durability),
 * foreign keys on, and a busy timeout so a CLI command run beside a daemon waits instead of failing.
 * Pending migrations run inside one IMMEDIATE transaction, so two processes opening the same file
 * never apply a step twice and a failed step leaves the old schema whole.
 */
export function openDatabase(file: string, options: OpenDatabaseOptions): Db {
  if (file !== ':memory:' && !options.readonly) {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    createPrivateFile(file);
  }
  const db = new Database(file, { readonly: options.readonly ?? false, fileMustExist: options.readonly ?? false });
  db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
  if (!options.readonly) {
    // Must precede WAL mode: a WAL database keeps the page size it was created with.
    if (options.pageSize !== undefined) db.pragma(`page_size = ${options.pageSize}`);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
  }
  db.pragma('foreign_keys = ON');
  try {
    applyMigrations(db, file, options.migrations, options.readonly ?? false);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/**
 * Creates an empty database file with mode 0600 (whatever the umask) unless it exists: SQLite
 * would create it 0644, and it gives the WAL and SHM files the mode of the database file.
 */
function createPrivateFile(file: string): void {
  let fd: number;
  try {
    fd = openSync(file, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return;
    throw error;
  }
  try {
    fchmodSync(fd, 0o600);
  } finally {
    closeSync(fd);
  }
}

export function latestVersion(migrations: readonly Migration[]): number {
  return migrations.reduce((max, m) => Math.max(max, m.version), 0);
}

/**
 * Throws unless the list is numbered 1, 2, 3, ... in order: a gap or a duplicate (two features
 * that took the same number) would otherwise skip a step or apply one twice on some databases.
 */
export function assertMigrationSequence(migrations: readonly Migration[]): void {
  const versions = migrations.map((m) => m.version);
  if (versions.every((version, index) => version === index + 1)) return;
  throw new Error(
    `Migrations must be numbered 1, 2, 3, ... in list order without gaps or repeats, but the list has versions ${versions.join(', ')}. ` +
      'Give the newest file the next free number (src/platform/storage/migrations/<database>/index.ts).',
  );
}

function applyMigrations(db: Db, file: string, migrations: readonly Migration[], readonly: boolean): void {
  assertMigrationSequence(migrations);
  const supported = latestVersion(migrations);
  const current = () => db.pragma('user_version', { simple: true }) as number;
  if (current() > supported) throw new SchemaTooNewError(file, current(), supported);
  if (readonly || current() === supported) return;
  const migrate = db.transaction(() => {
    // Re-read inside the write lock: another process may have migrated meanwhile.
    const from = current();
    if (from > supported) throw new SchemaTooNewError(file, from, supported);
    for (const migration of migrations.slice(from)) {
      migration.up(db);
      db.pragma(`user_version = ${migration.version}`);
    }
  });
  migrate.immediate();
}

/** True for SQLite's "another connection holds the lock" errors (SQLITE_BUSY and its extended codes). */
export function isBusyError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/**
 * Runs `write` (one transaction) only if no other connection holds the write lock, and returns
 * false, having written nothing, when one does. better-sqlite3 waits for a busy lock
 * synchronously, so a background flush that waited the busy timeout would stall the whole event
 * loop; such writers try again on their next tick instead.
 */
export function writeWithoutWaiting(db: Db, write: () => void): boolean {
  const waitMs = db.pragma('busy_timeout', { simple: true }) as number;
  db.pragma('busy_timeout = 0');
  try {
    write();
    return true;
  } catch (error) {
    if (isBusyError(error)) return false;
    throw error;
  } finally {
    db.pragma(`busy_timeout = ${waitMs}`);
  }
}
