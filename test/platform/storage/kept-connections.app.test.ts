import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { KeptConnections } from '../../../src/platform/storage/kept-connections.js';
import { openDatabase, type Db } from '../../../src/platform/storage/sqlite.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function file(): string {
  const dir = mkdtempSync(join(tmpdir(), 'nodectl-kept-'));
  dirs.push(dir);
  const path = join(dir, 'graph.sqlite');
  openDatabase(path, { migrations: [] }).close();
  return path;
}

describe('KeptConnections', () => {
  it('gives the same connection for a file while it is used, and a new one once the path names another file', () => {
    const path = file();
    const kept = new KeptConnections((f) => openDatabase(f, { migrations: [] }), 1000);
    const first = kept.get(path);
    expect(kept.get(path)).toBe(first);
    for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
    openDatabase(path, { migrations: [] }).close();
    const second = kept.get(path);
    expect(second).not.toBe(first);
    expect(first.open).toBe(false);
    second.close();
  });

  it('closes a connection left unused for its idle time, unless its owner still uses it', () => {
    // The idle timers on a fake clock: 150 ms pass when the test says so.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const [idle, busy] = [file(), file()];
      let inUse = true;
      const kept = new KeptConnections(
        (f) => openDatabase(f, { migrations: [] }),
        30,
        (db: Db) => db.name === busy && inUse,
      );
      const [idleDb, busyDb] = [kept.get(idle), kept.get(busy)];
      vi.advanceTimersByTime(150);
      expect(idleDb.open).toBe(false);
      expect(busyDb.open).toBe(true);
      inUse = false;
      vi.advanceTimersByTime(150);
      expect(busyDb.open).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });

  it('counts the idle time from the last touch (a use that ended), not only from the last get', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const path = file();
      const kept = new KeptConnections((f) => openDatabase(f, { migrations: [] }), 30);
      const db = kept.get(path);
      // A use that outlasts the idle time ends 20 ms before it would have run out, and says so.
      vi.advanceTimersByTime(20);
      kept.touch(path);
      vi.advanceTimersByTime(20);
      expect(db.open).toBe(true);
      expect(kept.get(path)).toBe(db);
      vi.advanceTimersByTime(31);
      expect(db.open).toBe(false);
      kept.touch(path);
      const reopened = kept.get(path);
      expect(reopened).not.toBe(db);
      reopened.close();
    } finally {
      vi.useRealTimers();
    }
  });
});
