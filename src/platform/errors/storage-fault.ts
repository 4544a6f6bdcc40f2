import { AppError } from './app-error.js';

/** Why the data directory cannot take a write: no space (or quota) left, or the disk fails. */
export type StorageFaultReason = 'disk_full' | 'io_error';

/** SQLite's result codes and the errno codes of node:fs that a full or failing disk gives. */
const DISK_FULL = new Set(['SQLITE_FULL', 'ENOSPC', 'EDQUOT']);
const IO_ERROR = new Set(['EIO', 'EROFS']);

/** A client retries a full disk after this long, not at once: space comes back when an operator frees it. */
const RETRY_AFTER_SECONDS = 10;

function reasonOfCode(code: unknown): StorageFaultReason | undefined {
  if (typeof code !== 'string') return undefined;
  if (DISK_FULL.has(code)) return 'disk_full';
  // SQLITE_IOERR and its extended codes (SQLITE_IOERR_WRITE, SQLITE_IOERR_FSYNC, SQLITE_IOERR_SHMSIZE, ...).
  if (IO_ERROR.has(code) || code === 'SQLITE_IOERR' || code.startsWith('SQLITE_IOERR_')) return 'io_error';
  return undefined;
}

/**
 * The storage fault behind `error`, looking through its causes (an error a worker thread or a
 * job wraps): its reason and the SQLite or errno code that gave it away. A message alone never
 * counts: only the code better-sqlite3 and node:fs set.
 */
export function storageFaultOf(error: unknown): { reason: StorageFaultReason; code: string } | undefined {
  let current = error;
  for (let depth = 0; depth < 8 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    const reason = reasonOfCode(code);
    if (reason) return { reason, code: code as string };
    current = current.cause;
  }
  return undefined;
}

/** True for a full, over-quota or failing disk, and for the AppError that reports one (or the free-space floor). */
export function isStorageFault(error: unknown): boolean {
  if (error instanceof AppError) return error.code === 'service.storage_unavailable';
  return storageFaultOf(error) !== undefined;
}

/**
 * The 503 service.storage_unavailable a storage fault reaches a client or a user as, or undefined
 * when `error` is no storage fault. An AppError of that code is returned as it is.
 */
export function storageUnavailableError(error: unknown): AppError | undefined {
  if (error instanceof AppError) return error.code === 'service.storage_unavailable' ? error : undefined;
  const fault = storageFaultOf(error);
  if (!fault) return undefined;
  const message =
    fault.reason === 'disk_full'
      ? `The data directory's disk is full (${fault.code}): free space on it; nothing was lost, retry once there is room.`
      : // SQLite reports a write the disk refused for want of space as an I/O error too (SQLITE_IOERR_WRITE, _SHMSIZE).
        `The data directory's disk is full or failing (${fault.code}): free space on it or check the disk; nothing was lost, retry once it takes writes again.`;
  return new AppError('service.storage_unavailable', message, {
    cause: error,
    details: { reason: fault.reason },
    retryAfterSeconds: RETRY_AFTER_SECONDS,
  });
}

/** The refusal of new work while the data directory's disk is below the free-space floor (minFreeDiskMb). */
export function belowFloorError(freeMb: number, floorMb: number): AppError {
  return new AppError(
    'service.storage_unavailable',
    `The data directory's disk has ${freeMb} MB free, below the floor of ${floorMb} MB; free space or lower NODECTL_MIN_FREE_DISK_MB.`,
    { details: { reason: 'below_floor', free_mb: freeMb, floor_mb: floorMb }, retryAfterSeconds: RETRY_AFTER_SECONDS },
  );
}
