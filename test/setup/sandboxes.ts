import { accessSync, constants, mkdtempSync, readFileSync, rmSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    sandboxes: string;
  }
}

/** The magic number statfs reports for a tmpfs. */
const TMPFS_MAGIC = 0x01021994;
/** The least a RAM disk must have free to hold the run's folders (the install test's build is the largest). */
const MIN_FREE_BYTES = 4 * 1024 ** 3;

/**
 * Where the run's folders go: NODECTL_TEST_TMPDIR when set, else /dev/shm when it is a writable
 * tmpfs with room that allows executables, else the system's temporary folder. On a disk every
 * fsync the code under test makes (publishes, SQLite commits) waits for the journal, a quarter of
 * the suite's time (docs/performance.md). What the tests check does not change: a killed process
 * loses nothing on a RAM disk that a disk would have kept.
 */
export function sandboxBase(env: NodeJS.ProcessEnv = process.env): string {
  if (env.NODECTL_TEST_TMPDIR) return env.NODECTL_TEST_TMPDIR;
  try {
    const shm = '/dev/shm';
    accessSync(shm, constants.W_OK);
    const fs = statfsSync(shm);
    if (fs.type === TMPFS_MAGIC && fs.bavail * fs.bsize >= MIN_FREE_BYTES && !mountedNoexec(shm)) return shm;
  } catch {
    // no /dev/shm (macOS, Windows) or not ours to write
  }
  return tmpdir();
}

/** Whether `path` is mounted noexec: the install test loads the native module it builds from its sandbox. */
function mountedNoexec(path: string): boolean {
  const mount = readFileSync('/proc/self/mounts', 'utf8')
    .split('\n')
    .map((line) => line.split(' '))
    .filter((fields) => fields[1] === path)
    .at(-1);
  return mount === undefined || mount[3]!.split(',').includes('noexec');
}

/**
 * Global setup (the main process, once per project): the folder under which each test file's
 * sandbox is made (test/setup/sandbox.ts), removed with all of them when the run ends, even when
 * a file's own hooks did not run (`vitest list`, a killed fork). The main process's TMPDIR points
 * at the same base, so what it starts (the run's PostgreSQL) and the forks it starts after this
 * use it too.
 */
export default function setup(project: TestProject): () => void {
  const base = sandboxBase();
  process.env.TMPDIR = base;
  const root = mkdtempSync(join(base, `nodectl-test-${project.name || 'run'}-`));
  project.provide('sandboxes', root);
  return () => rmSync(root, { recursive: true, force: true });
}
