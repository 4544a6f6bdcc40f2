import { hostname } from 'node:os';
import { newUlid } from '../../../platform/ids/index.js';

/**
 * Who holds an in-flight idempotency record: `<host>:<pid>:<ulid made when this process started>`.
 * The ulid tells two lives of the same pid apart (a restarted container daemon is often pid 1 again).
 */
export const PROCESS_OWNER = `${hostname()}:${process.pid}:${newUlid()}`;

interface ParsedOwner {
  host: string;
  pid: number;
  startId: string;
}

function parseOwner(owner: string): ParsedOwner | undefined {
  const last = owner.lastIndexOf(':');
  const middle = owner.lastIndexOf(':', last - 1);
  if (middle <= 0) return undefined;
  const pid = Number(owner.slice(middle + 1, last));
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
  return { host: owner.slice(0, middle), pid, startId: owner.slice(last + 1) };
}

/**
 * True when `owner` is certainly dead: it ran on this host and either was an earlier life of this
 * process's pid or its pid no longer exists. Another host's owner (or an unreadable one) is never
 * judged here: its record lapses with its lease.
 */
export function isOwnerGone(owner: string, self: string = PROCESS_OWNER): boolean {
  if (owner === self) return false;
  const them = parseOwner(owner);
  const me = parseOwner(self);
  if (!them || !me || them.host !== me.host) return false;
  if (them.pid === me.pid) return true;
  return !isPidAlive(them.pid);
}

function isPidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the pid exists but belongs to another user; only ESRCH proves it is gone.
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}
