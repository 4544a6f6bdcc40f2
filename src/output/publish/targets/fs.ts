import {
  closeSync,
  copyFileSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import { open } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { domainMapAlias } from './public-alias.js';
import { assertKey, type ObjectInfo, type PublishTarget, type PutOptions } from './types.js';

export interface FsTargetOptions {
  /** Folder that holds the objects: `<data-dir>/nodes` for the embedded default. */
  root: string;
}

/** The fs target: a PublishTarget that is also a local folder, so the daemon can serve its files. */
export interface FsTarget extends PublishTarget {
  /** The file of an object (it may not exist), for readers that stream from the local store. */
  filePath(key: string): string;
}

const META_DIR = '.meta';
let sequence = 0;

/**
 * The local file-system target. Each object is a file at `<root>/<key>`; its content type and
 * cache-control live in a small sidecar `<root>/.meta/<key>.json` (a hard-linked copy shares the
 * bytes but not the sidecar). Every write goes to a temp file in the same folder and is renamed
 * over the key, so a reader or a crash sees the old object or the new one, never a part.
 *
 * Durability: an object's bytes are fsynced before its rename (a cas/ object that exists is
 * whole: the planner trusts it). What only names bytes (the folder entries of renames and links,
 * the sidecars) is made durable in one batch at the next put, before that put's own rename, and
 * the put's folder after it: so once put resolves, it and everything written before it survive a
 * power loss (a version's manifest and the pointer are puts, written last), at the cost of one
 * fsync per folder and sidecar per publish, run side by side, not one after another.
 */
export function createFsTarget(options: FsTargetOptions): FsTarget {
  const root = resolve(options.root);
  const pathOf = (key: string) => {
    assertKey(key);
    return join(root, ...key.split('/'));
  };
  const metaOf = (key: string) => join(root, META_DIR, ...key.split('/')) + '.json';
  // Threads share the pid and each has its own `sequence`: the random part keeps two threads' names apart.
  const tempBeside = (path: string) =>
    join(dirname(path), `.tmp-${process.pid}-${++sequence}-${randomBytes(6).toString('hex')}`);
  /** Files (sidecars) and folders whose latest change is not fsynced yet, and the batches under way. */
  const unsynced = { files: new Set<string>(), dirs: new Set<string>() };
  let syncing: Promise<unknown> = Promise.resolve();

  function ensureDir(dir: string): void {
    const first = mkdirSync(dir, { recursive: true });
    if (first === undefined) return;
    // Each new folder's entry in its parent must reach the disk too.
    for (let d = dir; ; d = dirname(d)) {
      unsynced.dirs.add(dirname(d));
      if (d === first || dirname(d) === d) break;
    }
  }

  function renameInto(temp: string, path: string): void {
    renameSync(temp, path);
    unsynced.dirs.add(dirname(path));
  }

  function writeTemp(path: string, body: Buffer | string, sync: boolean): string {
    ensureDir(dirname(path));
    const temp = tempBeside(path);
    const fd = openSync(temp, 'w');
    try {
      writeSync(fd, typeof body === 'string' ? Buffer.from(body) : body);
      if (sync) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    return temp;
  }

  /**
   * fsyncs every unsynced sidecar and folder, side by side (one journal commit serves many), and
   * waits for the batches other puts started, so nothing written before this call is left unsynced.
   */
  async function syncPending(): Promise<void> {
    const paths = [...unsynced.files, ...unsynced.dirs];
    unsynced.files.clear();
    unsynced.dirs.clear();
    const batch = Promise.all([syncing, ...paths.map(fsyncPath)]);
    syncing = batch;
    await batch;
  }

  function writeMeta(key: string, meta: PutOptions): void {
    const path = metaOf(key);
    renameInto(
      writeTemp(path, JSON.stringify({ contentType: meta.contentType, cacheControl: meta.cacheControl }), false),
      path,
    );
    unsynced.files.add(path);
  }

  function placeFile(path: string, from: string, mode: 'link' | 'adopt' | 'copy'): void {
    ensureDir(dirname(path));
    const temp = tempBeside(path);
    let linked = false;
    if (mode !== 'copy') {
      try {
        linkSync(from, temp);
        linked = true;
      } catch {
        copyFileSync(from, temp);
      }
    } else {
      copyFileSync(from, temp);
    }
    // A copy's bytes, and a handed-over file's (its writer may not have fsynced them), are
    // durable before the key names them. A link of a store object shares bytes already fsynced.
    if (!linked || mode === 'adopt') fsyncPathSync(temp);
    renameInto(temp, path);
    // When `path` already links the same inode (an unchanged file linked again), POSIX rename
    // does nothing and leaves `temp` in place; the name is ours alone, so remove it.
    removeIfPresent(temp);
  }

  const target: FsTarget = {
    kind: 'fs',
    description: root,
    async put(key, body, meta) {
      writeMeta(key, meta);
      const path = pathOf(key);
      const temp = writeTemp(path, body, true);
      await syncPending();
      renameInto(temp, path);
      await syncPending();
    },
    async putFile(key, localPath, meta) {
      writeMeta(key, meta);
      placeFile(pathOf(key), localPath, meta.handOver === true ? 'adopt' : 'copy');
    },
    async copy(fromKey, toKey, meta) {
      const from = pathOf(fromKey);
      statSync(from); // a missing source fails here, as CopyObject does
      writeMeta(toKey, meta);
      placeFile(pathOf(toKey), from, 'link');
    },
    async head(key) {
      let bytes: number;
      try {
        const stat = statSync(pathOf(key));
        if (!stat.isFile()) return undefined;
        bytes = stat.size;
      } catch {
        return undefined;
      }
      let meta: Partial<PutOptions> = {};
      try {
        meta = JSON.parse(readFileSync(metaOf(key), 'utf8')) as Partial<PutOptions>;
      } catch {
        // an object written by hand has no sidecar
      }
      return { key, bytes, contentType: meta.contentType, cacheControl: meta.cacheControl } satisfies ObjectInfo;
    },
    async get(key) {
      try {
        return readFileSync(pathOf(key));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'EISDIR')
          return undefined;
        throw error;
      }
    },
    async delete(key) {
      for (const path of [pathOf(key), metaOf(key)]) removeIfPresent(path);
    },
    async list(prefix) {
      const keys: string[] = [];
      const slash = prefix.lastIndexOf('/');
      const base = slash < 0 ? '' : prefix.slice(0, slash);
      const walk = (dir: string, keyPrefix: string) => {
        let entries;
        try {
          entries = readdirSync(dir, { withFileTypes: true });
        } catch {
          return;
        }
        for (const entry of entries) {
          if (entry.name.startsWith('.tmp-') || (keyPrefix === '' && entry.name === META_DIR)) continue;
          const key = keyPrefix + entry.name;
          if (entry.isDirectory()) walk(join(dir, entry.name), key + '/');
          else if (key.startsWith(prefix)) keys.push(key);
        }
      };
      walk(base === '' ? root : join(root, ...base.split('/')), base === '' ? '' : base + '/');
      return keys.sort(compareKeys);
    },
    async localFolder(prefix, names) {
      for (const name of names) assertKey(prefix + name);
      // The objects are files already: the folder is read in place.
      return pathOf(prefix.replace(/\/+$/, ''));
    },
    publicAlias: (site) => domainMapAlias(target, site),
    filePath: pathOf,
    async close() {},
  };
  return target;
}

function fsyncPathSync(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

async function fsyncPath(path: string): Promise<void> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return; // removed since (a pruned copy, a temp folder)
    throw error;
  }
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function removeIfPresent(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/** Code-point order (what S3 ListObjectsV2 returns for ASCII keys). */
export function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Removes a whole folder of objects (tests and takedown of a temp store). */
export function removeFsRoot(root: string): void {
  rmSync(root, { recursive: true, force: true });
}
