import { runsOnGlibc } from '../platform/memory/index.js';

/**
 * The daemon's allocator setting. A publish's thread frees, at its end, memory that grows with the
 * site; glibc raises its mmap threshold each time a large mapped block is freed, after which such blocks
 * come from its arenas and stay resident when freed. A fixed threshold (which also turns that
 * raising off) gives them back to the system (docs/performance.md, "The threshold adopted").
 * glibc reads it from the environment once, at the process's start.
 */
export const MMAP_THRESHOLD_VARIABLE = 'MALLOC_MMAP_THRESHOLD_';
/** 128 KiB: glibc's own starting threshold, now kept. */
export const MMAP_THRESHOLD_BYTES = 131_072;

/** What decides whether `nodectl serve` starts itself again with the setting. */
export interface MallocFacts {
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
  /** process.execve: Node.js 22.15 and later (Node 20 has none; set the variable yourself there). */
  canReplaceProcess: boolean;
  /** Whether the C library is glibc (others ignore the variable); asked last, as it takes a few ms. */
  glibc: () => boolean;
}

/** The environment to start again with, or undefined to go on as is (a value already set is the operator's). */
export function environmentWithMallocSettings(facts: MallocFacts): NodeJS.ProcessEnv | undefined {
  if (facts.platform !== 'linux' || !facts.canReplaceProcess || facts.env[MMAP_THRESHOLD_VARIABLE] !== undefined)
    return undefined;
  if (!facts.glibc()) return undefined;
  return { ...facts.env, [MMAP_THRESHOLD_VARIABLE]: String(MMAP_THRESHOLD_BYTES) };
}

/**
 * Replaces this process (same pid, same standard streams, same arguments) with one that has the
 * setting, when it lacks it and can. Call before opening anything: nothing of this process
 * survives, and its experimental-feature warning, due on the next tick, is never printed.
 */
export function restartWithMallocSettings(): void {
  const execve = (process as { execve?: (file: string, args: string[], env: NodeJS.ProcessEnv) => never }).execve;
  const env = environmentWithMallocSettings({
    platform: process.platform,
    env: process.env,
    canReplaceProcess: execve !== undefined,
    glibc: runsOnGlibc,
  });
  if (env === undefined || execve === undefined) return;
  try {
    execve.call(process, process.execPath, [process.execPath, ...process.execArgv, ...process.argv.slice(1)], env);
  } catch {
    // Not replaced (the system refused the exec): the daemon runs as it is, with glibc's own threshold.
  }
}
