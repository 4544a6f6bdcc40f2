import { statfsSync } from 'node:fs';
import { belowFloorError } from '../errors/index.js';

/** What the guard reads of a file system: blocks available to users and their size (fs.statfsSync). */
export type StatfsReader = (dir: string) => { bavail: number | bigint; bsize: number | bigint };

export interface FreeSpaceGuard {
  /** Throws 503 service.storage_unavailable when the disk holding the directory is below the floor. */
  assertAboveFloor(): void;
}

export interface FreeSpaceGuardOptions {
  /** A folder on the disk to watch: the data directory. */
  dir: string;
  /** MiB that must stay free (setting minFreeDiskMb); 0 turns the guard off. */
  floorMb: number;
  /** How long a reading above the floor is kept; default 1 s. */
  ttlMs?: number;
  statfs?: StatfsReader;
  now?: () => number;
}

const MB = 1024 * 1024;

/** MiB available to users on the disk holding `dir`, or undefined when the system cannot say. */
function readFreeMb(dir: string, statfs: StatfsReader): number | undefined {
  try {
    const stats = statfs(dir);
    return Math.floor((Number(stats.bavail) * Number(stats.bsize)) / MB);
  } catch {
    return undefined;
  }
}

/**
 * The free-space floor: new work (an ingest, a publish) is refused while the data directory's
 * disk has less than `floorMb` MiB free, so that what was acknowledged can still be processed
 * and the live node is never left half-written by a disk that fills up. A reading above the
 * floor is kept for `ttlMs` (not one statfs per request); a reading below it is not kept, so
 * freed space is seen by the next request. A disk that cannot be read refuses nothing.
 */
export function createFreeSpaceGuard(options: FreeSpaceGuardOptions): FreeSpaceGuard {
  const { dir, floorMb } = options;
  const statfs = options.statfs ?? statfsSync;
  const ttlMs = options.ttlMs ?? 1000;
  const now = options.now ?? Date.now;
  let aboveUntil = -Infinity;
  return {
    assertAboveFloor() {
      if (floorMb <= 0 || now() < aboveUntil) return;
      const free = readFreeMb(dir, statfs);
      if (free !== undefined && free < floorMb) throw belowFloorError(free, floorMb);
      aboveUntil = now() + ttlMs;
    },
  };
}

/** One reading, not kept: for a publish, which checks once per run (in its own thread). */
export function assertFreeSpace(dir: string, floorMb: number, statfs: StatfsReader = statfsSync): void {
  createFreeSpaceGuard({ dir, floorMb, statfs, ttlMs: 0 }).assertAboveFloor();
}
