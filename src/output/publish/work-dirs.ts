import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { isLocalProcessGone } from './lock.js';

/** Work folders no process is known to own (an older nodectl's, another host's) are removed after this long. */
const STALE_WORK_MS = 24 * 3600_000;

/** `publish-<pid>@<host>-XXXXXX`: the process that made the folder, as a publish lock names its holder. */
const OWNED = /^publish-(\d+)@([A-Za-z0-9._-]+)-[A-Za-z0-9]{6}$/;

/** The host part of a work folder's name: a host name keeps to these characters. */
function hostTag(): string {
  return hostname().replace(/[^A-Za-z0-9._-]/g, '_') || 'host';
}

function workParent(dataDir: string): string {
  return join(dataDir, 'tmp');
}

/**
 * A new work folder for one publish (the compiled node, a downloaded previous version) in
 * `<data-dir>/tmp/`: on the data directory's file system, so the fs target, under
 * `<data-dir>/nodes/`, links the compiled files into its store instead of copying them (a folder
 * in the OS temp directory is often another file system). Its name carries this process's pid and
 * host; folders of dead publishes are removed first (removeDeadWorkDirs).
 */
export function createPublishWorkDir(dataDir: string, nowMs: number): string {
  removeDeadWorkDirs(dataDir, { nowMs });
  const parent = workParent(dataDir);
  mkdirSync(parent, { recursive: true });
  return mkdtempSync(join(parent, `publish-${process.pid}@${hostTag()}-`));
}

export interface RemoveDeadWorkDirsOptions {
  nowMs: number;
  /**
   * The daemon's start: no publish runs in this process yet, so a folder naming this pid is a
   * dead process's that had the same pid (a container's daemon is often pid 1 at every start).
   */
  ownPidIsDead?: boolean;
}

/**
 * Removes the work folders of publishes that died (killed mid-way, or their process crashed): a
 * folder whose process on this host no longer runs, the same rule as a publish lock's holder
 * (lock.ts); any folder once a day old (a running publish never takes that long), which covers
 * those of an older nodectl (named by no process) and of another host sharing the data directory.
 * Returns how many it removed.
 */
export function removeDeadWorkDirs(dataDir: string, options: RemoveDeadWorkDirsOptions): number {
  const parent = workParent(dataDir);
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return 0;
  }
  const host = hostTag();
  let removed = 0;
  for (const name of names) {
    if (!name.startsWith('publish-')) continue;
    const path = join(parent, name);
    const owner = OWNED.exec(name);
    try {
      const pid = owner && owner[2] === host ? Number(owner[1]) : undefined;
      const dead =
        pid !== undefined &&
        ((options.ownPidIsDead === true && pid === process.pid) || (pid !== process.pid && isLocalProcessGone(pid)));
      if (!dead && options.nowMs - statSync(path).mtimeMs <= STALE_WORK_MS) continue;
      rmSync(path, { recursive: true, force: true });
      removed++;
    } catch {
      // removed by another process meanwhile, or not removable now: the next start tries again
    }
  }
  return removed;
}
