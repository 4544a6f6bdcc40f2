import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/platform/errors/app-error.js';
import { isStorageFault, storageUnavailableError } from '../../../src/platform/errors/storage-fault.js';
import { toAppError } from '../../../src/platform/http/errors.js';

const sqlite = (code: string, message: string) => new Database.SqliteError(message, code);
const errno = (code: string, message: string) =>
  Object.assign(new Error(`${code}: ${message}`), { code, errno: -1, syscall: 'write' });

/** The errors a full or failing data directory throws, as better-sqlite3 and node:fs throw them. */
const FULL = [sqlite('SQLITE_FULL', 'database or disk is full'), errno('ENOSPC', 'no space left on device, write')];
const QUOTA = [errno('EDQUOT', 'disk quota exceeded, write')];
const FAILING = [
  sqlite('SQLITE_IOERR', 'disk I/O error'),
  sqlite('SQLITE_IOERR_WRITE', 'disk I/O error'),
  sqlite('SQLITE_IOERR_SHMSIZE', 'disk I/O error'),
  errno('EIO', 'i/o error, fsync'),
  errno('EROFS', 'read-only file system, open'),
];
/** Errors that are not the disk's: a bug, a busy lock, a missing file, a constraint. */
const NOT_STORAGE = [
  sqlite('SQLITE_BUSY', 'database is locked'),
  sqlite('SQLITE_CONSTRAINT_UNIQUE', 'UNIQUE constraint failed: jobs.id'),
  sqlite('SQLITE_CORRUPT', 'database disk image is malformed'),
  errno('ENOENT', 'no such file or directory, open'),
  errno('EACCES', 'permission denied, open'),
  new Error('database or disk is full'),
  new TypeError('x is undefined'),
  'SQLITE_FULL',
  undefined,
];

describe('storage faults', () => {
  it('a full disk or quota (SQLITE_FULL, ENOSPC, EDQUOT) is a retryable 503 service.storage_unavailable saying to free space', () => {
    for (const error of [...FULL, ...QUOTA]) {
      expect(isStorageFault(error), String(error)).toBe(true);
      const app = storageUnavailableError(error)!;
      expect(app).toBeInstanceOf(AppError);
      expect(app).toMatchObject({ code: 'service.storage_unavailable', status: 503, retryable: true });
      expect(app.details).toMatchObject({ reason: 'disk_full' });
      expect(app.message).toMatch(/free space/);
      expect(app.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      expect(app.cause).toBe(error);
    }
  });

  it('a failing disk (SQLITE_IOERR and its extended codes, EIO, EROFS) is the same code, reason io_error', () => {
    for (const error of FAILING) {
      expect(isStorageFault(error), String(error)).toBe(true);
      expect(storageUnavailableError(error)).toMatchObject({
        code: 'service.storage_unavailable',
        details: { reason: 'io_error' },
      });
    }
  });

  it('is found behind a wrapping error (cause), and an AppError of the code is one already', () => {
    const wrapped = new Error('the publish worker failed', { cause: new Error('compile', { cause: FULL[1] }) });
    expect(isStorageFault(wrapped)).toBe(true);
    expect(storageUnavailableError(wrapped)?.details).toMatchObject({ reason: 'disk_full' });
    const floor = new AppError('service.storage_unavailable', 'below the floor');
    expect(isStorageFault(floor)).toBe(true);
    expect(storageUnavailableError(floor)).toBe(floor);
  });

  it('anything else is not a storage fault', () => {
    for (const error of NOT_STORAGE) {
      expect(isStorageFault(error), String(error)).toBe(false);
      expect(storageUnavailableError(error)).toBeUndefined();
    }
    expect(isStorageFault(new AppError('service.unavailable', 'not ready'))).toBe(false);
  });

  it('reaches a client as 503 service.storage_unavailable, not 500 internal.error (bug F1: a full disk answered 500, not retryable)', () => {
    for (const error of [...FULL, ...QUOTA, ...FAILING])
      expect(toAppError(error), String(error)).toMatchObject({
        code: 'service.storage_unavailable',
        status: 503,
        retryable: true,
      });
    for (const error of NOT_STORAGE.filter((e) => e instanceof Error && !('code' in e)))
      expect(toAppError(error).code).toBe('internal.error');
  });
});
