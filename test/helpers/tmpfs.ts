import { execFileSync } from 'node:child_process';
import { closeSync, ftruncateSync, mkdirSync, openSync, rmSync, statfsSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir } from './paths.js';

/** Mounting a file system needs root (CI and the development machines run the tests as root). */
export const isRoot = process.getuid?.() === 0;

export interface Tmpfs {
  dir: string;
  /** Unmounts it and removes the mount point. */
  unmount(): void;
}

/** A tmpfs of `sizeMb` MiB mounted on a fresh temporary folder: a small disk a test can fill. */
export function mountTmpfs(sizeMb: number): Tmpfs {
  const temp = makeTempDir('nodectl-tmpfs-');
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m`, 'tmpfs', temp.dir]);
  return {
    dir: temp.dir,
    unmount() {
      execFileSync('umount', ['-l', temp.dir]);
      temp.cleanup();
    },
  };
}

/** Bytes available to a user on the file system holding `dir`. */
export function freeBytes(dir: string): number {
  const stats = statfsSync(dir);
  return Number(stats.bavail) * Number(stats.bsize);
}

export interface Filler {
  path: string;
  /** Deletes the filler: the space is back. */
  remove(): void;
}

/**
 * Fills the file system holding `dir` with one file until a write fails with ENOSPC, then gives
 * `leaveFreeMb` MiB back, so exactly that much stays free (0: the disk is full).
 */
export function fillDisk(dir: string, leaveFreeMb = 0): Filler {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `filler-${process.pid}`);
  const fd = openSync(path, 'w');
  let size = 0;
  try {
    for (const chunk of [Buffer.alloc(1024 * 1024, 1), Buffer.alloc(4096, 1)]) {
      for (;;) {
        try {
          size += writeSync(fd, chunk);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
          break;
        }
      }
    }
    if (leaveFreeMb > 0) ftruncateSync(fd, Math.max(0, size - leaveFreeMb * 1024 * 1024));
  } finally {
    closeSync(fd);
  }
  return { path, remove: () => rmSync(path, { force: true }) };
}
