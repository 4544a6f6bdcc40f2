import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/**
 * The niceness of a thread that serves another one's critical path: a publish's graph reading
 * thread and its written-node check run alongside the compile, which alone decides when the
 * publish ends. On a 2-core machine the three (and V8's helpers) share two cores evenly unless
 * told otherwise; at niceness 5 the compile gets about three times their share when they compete,
 * and they still run whenever it waits (docs/publishing.md "Threads").
 */
export const BACKGROUND_NICENESS = 5;

/**
 * Lowers the calling thread's scheduling priority to `niceness`; never raises it (that needs a
 * privilege). Linux only: the thread's id comes from /proc/thread-self, and setpriority given a
 * thread id changes that thread alone. Elsewhere, or when refused, the thread keeps the process's
 * priority. Returns whether the priority was lowered.
 */
export function lowerThreadPriority(niceness: number = BACKGROUND_NICENESS): boolean {
  const tid = currentThreadId();
  if (tid === null) return false;
  try {
    if (getPriority(tid) >= niceness) return false;
    setPriority(tid, niceness);
    return true;
  } catch {
    return false;
  }
}

/** The kernel's id of the calling thread (Linux), else null. */
export function currentThreadId(): number | null {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isInteger(tid) && tid > 0 ? tid : null;
  } catch {
    return null;
  }
}
