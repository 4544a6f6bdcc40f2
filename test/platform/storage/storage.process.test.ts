import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { GRAPH_DB_OPTIONS } from '../../../src/ingest/graph/schema.js';
import { CONTROL_MIGRATIONS } from '../../../src/platform/storage/control-schema.js';
import { dataDirLayout, ensureDataDir } from '../../../src/platform/storage/data-dir.js';
import {
  latestVersion,
  openDatabase,
  SchemaTooNewError,
  type Migration,
} from '../../../src/platform/storage/sqlite.js';
import { runNodectl } from '../../helpers/cli.js';
import { makeTempDir } from '../../helpers/paths.js';

describe('data directory and SQLite', () => {
  const temps: Array<() => void> = [];
  afterEach(() => temps.splice(0).forEach((cleanup) => cleanup()));
  const temp = () => {
    const t = makeTempDir();
    temps.push(t.cleanup);
    return t.dir;
  };

  it('creates the layout, a master key and a signing key pair, all 0600, on first use, and keeps them', () => {
    const layout = dataDirLayout(temp());
    ensureDataDir(layout);
    for (const file of [layout.masterKeyFile, layout.jwtPrivateKeyFile, layout.jwtPublicKeyFile])
      expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(layout.jwtPrivateKeyFile, 'utf8')).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    const key = readFileSync(layout.masterKeyFile, 'utf8');
    ensureDataDir(layout);
    expect(readFileSync(layout.masterKeyFile, 'utf8')).toBe(key);
    for (const dir of [layout.graphsDir, layout.nodesDir, layout.mailDir, layout.keysDir])
      expect(statSync(dir).isDirectory()).toBe(true);
  });

  it('opens with WAL, synchronous=FULL, foreign keys and a busy timeout, and migrates to the latest version', () => {
    const file = join(temp(), 'control.sqlite');
    const db = openDatabase(file, { migrations: CONTROL_MIGRATIONS });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    expect(db.pragma('user_version', { simple: true })).toBe(latestVersion(CONTROL_MIGRATIONS));
    db.close();
  });

  it('creates graph databases with 16 KiB pages (item bodies fit without long overflow chains); an existing file keeps its own', () => {
    const dir = temp();
    const graph = openDatabase(join(dir, 'graph.sqlite'), GRAPH_DB_OPTIONS);
    expect(graph.pragma('page_size', { simple: true })).toBe(16_384);
    expect(graph.pragma('journal_mode', { simple: true })).toBe('wal');
    graph.close();
    const old = openDatabase(join(dir, 'old.sqlite'), { migrations: GRAPH_DB_OPTIONS.migrations });
    old.close();
    const reopened = openDatabase(join(dir, 'old.sqlite'), GRAPH_DB_OPTIONS);
    expect(reopened.pragma('page_size', { simple: true })).toBe(4096);
    reopened.close();
  });

  it('runs a failing migration in a transaction: the old schema stays whole', () => {
    const file = join(temp(), 'x.sqlite');
    const v1: Migration = { version: 1, name: 'one', up: (db) => db.exec('CREATE TABLE a (x INTEGER)') };
    openDatabase(file, { migrations: [v1] }).close();
    const broken: Migration = {
      version: 2,
      name: 'broken',
      up: (db) => {
        db.exec('CREATE TABLE b (y INTEGER)');
        throw new Error('boom');
      },
    };
    expect(() => openDatabase(file, { migrations: [v1, broken] })).toThrowError('boom');
    const raw = new Database(file);
    expect(raw.pragma('user_version', { simple: true })).toBe(1);
    expect(raw.prepare(`SELECT name FROM sqlite_master WHERE name = 'b'`).get()).toBeUndefined();
    raw.close();
  });

  it('refuses a database written by a newer version with a clear message', () => {
    const file = join(temp(), 'future.sqlite');
    const raw = new Database(file);
    raw.pragma('user_version = 999');
    raw.close();
    expect(() => openDatabase(file, { migrations: CONTROL_MIGRATIONS })).toThrowError(SchemaTooNewError);
    expect(() => openDatabase(file, { migrations: CONTROL_MIGRATIONS })).toThrowError(/written by a newer nodectl/);
  });

  it('the CLI refuses a newer data directory with exit 1 and no stack trace', async () => {
    const dataDir = temp();
    const raw = new Database(join(dataDir, 'control.sqlite'));
    raw.pragma('user_version = 999');
    raw.close();
    const run = await runNodectl(['admin', 'user', 'list'], { dataDir });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(/schema version 999.*newer nodectl/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});
