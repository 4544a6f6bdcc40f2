import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/**
 * The niceness of a thread whose work can wait for a request's: content.ingest's extraction
 * workers. On a 2-core machine they took a core beside the graph writer thread, and an ingest
 * request's acknowledgement waited for the CPU (docs/performance.md, issue 40 item 3); at 10
 * they still run whenever nothing more urgent does.
 */
export const BACKGROUND_NICENESS = 10;

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
