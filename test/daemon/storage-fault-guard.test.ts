import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { keepRunningOnStorageFaults } from '../../src/daemon/storage-fault-guard.js';

describe("the daemon's guard against uncaught storage faults", () => {
  let uninstall: (() => void) | undefined;
  afterEach(() => uninstall?.());

  it('logs an uncaught exception or unhandled rejection that is a storage fault and lets the daemon run on; uninstalled, it leaves no listener', () => {
    const before = {
      exception: process.listenerCount('uncaughtException'),
      rejection: process.listenerCount('unhandledRejection'),
    };
    const logged: Array<{ err: unknown; message: string }> = [];
    uninstall = keepRunningOnStorageFaults({
      error: (fields: { err: unknown }, message: string) => void logged.push({ err: fields.err, message }),
    } as never);
    const full = new Database.SqliteError('database or disk is full', 'SQLITE_FULL');
    const ioError = Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
    process.emit('uncaughtException', full, 'uncaughtException');
    process.emit('unhandledRejection', ioError, Promise.resolve());
    expect(logged.map((entry) => entry.err)).toEqual([full, ioError]);
    expect(logged[0]!.message).toMatch(/the daemon keeps running/);
    uninstall();
    uninstall = undefined;
    expect(process.listenerCount('uncaughtException')).toBe(before.exception);
    expect(process.listenerCount('unhandledRejection')).toBe(before.rejection);
  });
});
