import { writeFileSync } from 'node:fs';

/**
 * Names the calling thread for the operating system (Linux: /proc/thread-self/comm, at most 15
 * bytes), so `top -H`, `ps -L` and /proc/<pid>/task show which of the daemon's threads is busy:
 * the extraction worker, the graph writer, a publish and its helpers (bench/e2e.mjs reports the
 * CPU of each by these names). Elsewhere, or when refused, nothing changes. Returns whether the
 * name was set.
 */
export function nameThread(name: string): boolean {
  try {
    writeFileSync('/proc/thread-self/comm', Buffer.from(name).subarray(0, 15));
    return true;
  } catch {
    return false;
  }
}
