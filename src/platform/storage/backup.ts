import Database from 'better-sqlite3';
import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmdirSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { NODECTL_VERSION } from '../config/index.js';
import { dataDirLayout, ensureDataDir, isGraphDbFileName, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from './data-dir.js';
import { readTar, TarFormatError, TarWriter } from './tar-archive.js';

/**
 * `nodectl backup` and `nodectl restore`: a data directory to one tar file and back. The
 * databases are copied with SQLite's online backup, so a daemon may keep writing meanwhile; each
 * database in the archive is a consistent snapshot of itself (control.sqlite first, then each
 * graph with its inbox: a website created during the backup may have a graph but no row, which the
 * daemon ignores; an item moved from the inbox into the graph during the backup may be in both
 * copies, which the move after a restore takes as already moved).
 */
export const MANIFEST_NAME = 'nodectl-backup.json';

export class BackupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackupError';
  }
}

const FileSchema = z.strictObject({
  path: z.string().min(1),
  size: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});

const ManifestSchema = z.strictObject({
  format: z.literal('nodectl-backup'),
  formatVersion: z.literal(1),
  nodectlVersion: z.string(),
  createdAt: z.iso.datetime(),
  withNodes: z.boolean(),
  websites: z.array(z.string()),
  files: z.array(FileSchema),
});
export type BackupManifest = z.infer<typeof ManifestSchema>;

/** What an archive may hold, and nothing else: a path outside these is refused before it is written. */
const ALLOWED_PATH =
  /^(control\.sqlite|config\.json|nodectl-backup\.json|graphs|graphs\/[A-Za-z0-9_-]{1,128}(\.inbox)?\.sqlite|keys|keys(\/[A-Za-z0-9._-]+)+|nodes|nodes\/[^\0]+)$/;

function checkArchivePath(path: string): void {
  const segments = path.split('/');
  if (!ALLOWED_PATH.test(path) || segments.some((s) => s === '' || s === '.' || s === '..'))
    throw new BackupError(`the archive holds ${JSON.stringify(path)}, which is not part of a nodectl data directory`);
}

const tempName = (path: string, what: string) =>
  join(dirname(path), `.${basename(path)}.${what}-${process.pid}-${randomBytes(4).toString('hex')}`);

/** Copies one SQLite database with the online backup API, all remaining pages in one step. */
async function backupDatabase(source: string, destination: string): Promise<void> {
  const db = new Database(source, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 10000');
    // The first step only starts the backup; the second copies every page while holding the read
    // lock, so writes by the daemon in between cannot make it start over again and again.
    await db.backup(destination, { progress: () => 0x7fffffff });
  } finally {
    db.close();
  }
}

/** Regular files under `dir`, as paths relative to it with `/`, sorted; links and the like are skipped. */
function listFiles(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    const stat = lstatSync(full);
    if (stat.isDirectory()) out.push(...listFiles(full, `${prefix}${name}/`));
    else if (stat.isFile()) out.push(`${prefix}${name}`);
  }
  return out;
}

export interface BackupOptions {
  dataDir: string;
  /** The archive to write; refused if it exists. */
  archive: string;
  withNodes: boolean;
  /**
   * The control tables live elsewhere (controlStore is a PostgreSQL URL, backed up with its own
   * tools): the archive then holds no control.sqlite, only what the data directory keeps.
   */
  controlTablesElsewhere?: boolean;
  now?: Date;
}

export interface BackupResult {
  archive: string;
  bytes: number;
  websites: string[];
  files: number;
}

export async function backupDataDir(options: BackupOptions): Promise<BackupResult> {
  const layout = dataDirLayout(options.dataDir);
  const archive = resolve(options.archive);
  const withControlDb = !options.controlTablesElsewhere;
  if (withControlDb ? !existsSync(layout.controlDb) : !existsSync(layout.masterKeyFile))
    throw new BackupError(
      `${layout.root} holds no ${withControlDb ? 'control.sqlite' : 'keys/master.key'}: is it a nodectl data directory? (--data-dir)`,
    );
  if (existsSync(archive)) throw new BackupError(`${archive} exists: give the backup a new file name`);
  if (!existsSync(dirname(archive))) throw new BackupError(`the folder of ${archive} does not exist`);
  const now = options.now ?? new Date();
  const staging = tempName(archive, 'staging');
  const partial = tempName(archive, 'partial');
  mkdirSync(staging, { mode: PRIVATE_DIR_MODE });
  try {
    if (withControlDb) await backupDatabase(layout.controlDb, join(staging, 'control.sqlite'));
    const websites = existsSync(layout.graphsDir)
      ? readdirSync(layout.graphsDir)
          .filter(isGraphDbFileName)
          .map((name) => name.slice(0, -'.sqlite'.length))
          .sort()
      : [];
    mkdirSync(join(staging, 'graphs'));
    // The inbox before the graph: a row moved meanwhile (into the graph, then out of the inbox)
    // is then in one copy or both, never in neither.
    const graphFiles = websites.flatMap((id) => [
      ...(existsSync(join(layout.graphsDir, `${id}.inbox.sqlite`)) ? [`${id}.inbox.sqlite`] : []),
      `${id}.sqlite`,
    ]);
    for (const name of graphFiles) await backupDatabase(join(layout.graphsDir, name), join(staging, 'graphs', name));

    const fd = openSync(partial, 'wx', PRIVATE_FILE_MODE);
    const files: BackupManifest['files'] = [];
    try {
      const tar = new TarWriter(fd, Math.floor(now.getTime() / 1000));
      const add = async (path: string, source: string) => {
        files.push({ path, ...(await tar.addFile(path, source)) });
      };
      if (withControlDb) await add('control.sqlite', join(staging, 'control.sqlite'));
      await tar.addDirectory('graphs');
      for (const name of graphFiles) await add(`graphs/${name}`, join(staging, 'graphs', name));
      await tar.addDirectory('keys');
      if (existsSync(layout.keysDir))
        for (const name of listFiles(layout.keysDir)) await add(`keys/${name}`, join(layout.keysDir, name));
      const configFile = join(layout.root, 'config.json');
      if (existsSync(configFile)) await add('config.json', configFile);
      if (options.withNodes && existsSync(layout.nodesDir)) {
        await tar.addDirectory('nodes');
        for (const name of listFiles(layout.nodesDir)) await add(`nodes/${name}`, join(layout.nodesDir, name));
      }
      const manifest: BackupManifest = {
        format: 'nodectl-backup',
        formatVersion: 1,
        nodectlVersion: NODECTL_VERSION,
        createdAt: now.toISOString(),
        withNodes: options.withNodes,
        websites,
        files,
      };
      await tar.addBuffer(MANIFEST_NAME, Buffer.from(JSON.stringify(manifest, null, 2) + '\n'));
      await tar.finish();
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(partial, archive);
    return { archive, bytes: lstatSync(archive).size, websites, files: files.length };
  } finally {
    rmSync(staging, { recursive: true, force: true });
    rmSync(partial, { force: true });
  }
}

/** SHA-256 of a file, read 1 MiB at a time (a graph may be gigabytes). */
function sha256Of(file: string): string {
  const hash = createHash('sha256');
  const chunk = Buffer.alloc(1 << 20);
  const fd = openSync(file, 'r');
  try {
    for (let read = readSync(fd, chunk); read > 0; read = readSync(fd, chunk)) hash.update(chunk.subarray(0, read));
  } finally {
    closeSync(fd);
  }
  return hash.digest('hex');
}

export interface RestoreResult {
  dataDir: string;
  websites: string[];
  files: number;
  createdAt: string;
  withNodes: boolean;
}

/**
 * Restores an archive into an empty (or missing) data directory: everything is written into a
 * folder beside it, checked (the manifest's checksums, PRAGMA integrity_check of every database),
 * then renamed into place; on any failure the target is left as it was.
 */
export function restoreDataDir(options: { archive: string; dataDir: string }): RestoreResult {
  const archive = resolve(options.archive);
  const target = resolve(options.dataDir);
  if (!existsSync(archive)) throw new BackupError(`${archive} does not exist`);
  if (existsSync(target) && readdirSync(target).length > 0)
    throw new BackupError(`${target} is not empty: restore only into an empty or new data directory`);
  if (!existsSync(dirname(target))) throw new BackupError(`the folder of ${target} does not exist`);
  const work = tempName(target, 'restore');
  mkdirSync(work, { mode: PRIVATE_DIR_MODE });
  try {
    const seen = new Set<string>();
    readTar(archive, (entry) => {
      checkArchivePath(entry.path);
      if (seen.has(entry.path)) throw new BackupError(`the archive holds ${entry.path} twice`);
      seen.add(entry.path);
      const out = join(work, ...entry.path.split('/'));
      if (entry.type === 'directory') return void mkdirSync(out, { recursive: true, mode: PRIVATE_DIR_MODE });
      mkdirSync(dirname(out), { recursive: true, mode: PRIVATE_DIR_MODE });
      const fd = openSync(out, 'wx', PRIVATE_FILE_MODE);
      return {
        write: (chunk) => void writeSync(fd, chunk),
        close: () => {
          try {
            fsyncSync(fd);
          } finally {
            closeSync(fd);
          }
        },
      };
    });
    const manifestFile = join(work, MANIFEST_NAME);
    if (!existsSync(manifestFile))
      throw new BackupError(`${archive} has no ${MANIFEST_NAME}: not a nodectl backup, or a truncated one`);
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(manifestFile, 'utf8'));
    } catch (error) {
      throw new BackupError(`${MANIFEST_NAME} in ${archive} is not JSON: ${(error as Error).message}`);
    }
    const parsed = ManifestSchema.safeParse(raw);
    if (!parsed.success)
      throw new BackupError(
        `${MANIFEST_NAME} in ${archive} is not valid: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`,
      );
    const manifest = parsed.data;
    const listed = new Set(manifest.files.map((f) => f.path));
    for (const path of seen)
      if (!listed.has(path) && path !== MANIFEST_NAME && !['graphs', 'keys', 'nodes'].includes(path))
        throw new BackupError(`${path} is in ${archive} but not in its manifest`);
    for (const file of manifest.files) {
      checkArchivePath(file.path);
      const path = join(work, ...file.path.split('/'));
      if (!existsSync(path)) throw new BackupError(`${file.path} is missing from ${archive}`);
      if (sha256Of(path) !== file.sha256)
        throw new BackupError(`${file.path} in ${archive} does not match its checksum`);
    }
    rmSync(manifestFile);
    for (const file of manifest.files.filter((f) => f.path.endsWith('.sqlite'))) {
      const db = new Database(join(work, ...file.path.split('/')), { fileMustExist: true });
      try {
        const result = db.pragma('integrity_check', { simple: true });
        if (result !== 'ok') throw new BackupError(`${file.path} fails PRAGMA integrity_check: ${String(result)}`);
      } finally {
        db.close();
      }
    }
    ensureDataDir(dataDirLayout(work));
    if (existsSync(target)) rmdirSync(target);
    renameSync(work, target);
    return {
      dataDir: target,
      websites: manifest.websites,
      files: manifest.files.length,
      createdAt: manifest.createdAt,
      withNodes: manifest.withNodes,
    };
  } catch (error) {
    rmSync(work, { recursive: true, force: true });
    if (error instanceof TarFormatError)
      throw new BackupError(`${archive} is not a nodectl backup (${error.message}); nothing was restored`);
    throw error;
  }
}
