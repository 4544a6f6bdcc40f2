import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { generateKeyPairSync, randomBytes } from 'node:crypto';

/** Where everything of one nodectl installation lives. */
export interface DataDirLayout {
  readonly root: string;
  readonly controlDb: string;
  readonly graphsDir: string;
  readonly nodesDir: string;
  readonly mailDir: string;
  readonly keysDir: string;
  readonly masterKeyFile: string;
  /** Ed25519 key pair that signs access tokens (EdDSA, docs/contract.md#sessions). */
  readonly jwtPrivateKeyFile: string;
  readonly jwtPublicKeyFile: string;
  readonly locksDir: string;
}

export function dataDirLayout(root: string): DataDirLayout {
  const abs = resolve(root);
  return {
    root: abs,
    controlDb: join(abs, 'control.sqlite'),
    graphsDir: join(abs, 'graphs'),
    nodesDir: join(abs, 'nodes'),
    mailDir: join(abs, 'mail'),
    keysDir: join(abs, 'keys'),
    masterKeyFile: join(abs, 'keys', 'master.key'),
    jwtPrivateKeyFile: join(abs, 'keys', 'jwt-ed25519.pem'),
    jwtPublicKeyFile: join(abs, 'keys', 'jwt-ed25519.pub.pem'),
    locksDir: join(abs, 'locks'),
  };
}

/** The graph database file of one website. Website ids are validated before they reach a path. */
export function graphDbPath(layout: DataDirLayout, websiteId: string): string {
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(websiteId)) throw new Error(`invalid website id for a file name: ${websiteId}`);
  return join(layout.graphsDir, `${websiteId}.sqlite`);
}

/**
 * The inbox database of one website (src/ingest/graph/inbox.ts): what ingest requests
 * acknowledged and content.ingest has not moved into the graph file yet.
 */
export function graphInboxPath(layout: DataDirLayout, websiteId: string): string {
  return `${graphDbPath(layout, websiteId).slice(0, -'.sqlite'.length)}.inbox.sqlite`;
}

/** Whether a file name in graphs/ is a website's graph database (not its inbox, WAL or shared memory). */
export function isGraphDbFileName(name: string): boolean {
  return /^[A-Za-z0-9_-]{1,128}\.sqlite$/.test(name);
}

/** Writes a secret file with mode 0600 unless it exists; if another process wins the race, theirs stays. */
function createSecretFile(file: string, contents: () => string): void {
  if (existsSync(file)) return;
  try {
    writeFileSync(file, contents(), { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/** Folders of the data directory: the owner only (issue 36: control.sqlite holds password and token hashes). */
export const PRIVATE_DIR_MODE = 0o700;
/** Database files, their WAL and SHM, and keys: the owner only. */
export const PRIVATE_FILE_MODE = 0o600;

/** A database file or one of its siblings (`-wal`, `-shm`, `-journal`). */
const DATABASE_FILE = /\.sqlite(-wal|-shm|-journal)?$/;

/** Sets `mode` when the path has another (a missing path is left alone); chmod, so the umask does not matter. */
function tighten(path: string, mode: number): void {
  let current: number;
  try {
    current = statSync(path).mode & 0o777;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if (current !== mode) chmodSync(path, mode);
}

/** Creates a folder (and its missing parents) for the owner only, and tightens it when it exists. */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  tighten(dir, PRIVATE_DIR_MODE);
}

/** Tightens the database files of a folder that an older nodectl (or a loose umask) left readable by others. */
function tightenDatabaseFiles(dir: string): void {
  for (const name of readdirSync(dir)) if (DATABASE_FILE.test(name)) tighten(join(dir, name), PRIVATE_FILE_MODE);
}

/**
 * Creates the folders (mode 0700), the master key and the token signing key pair (files mode
 * 0600) if they are missing, and tightens what exists: the folders to 0700, control.sqlite, the
 * graphs and their WAL and SHM files to 0600. Safe to call repeatedly and from several processes at once.
 */
export function ensureDataDir(layout: DataDirLayout): void {
  for (const dir of [layout.root, layout.graphsDir, layout.nodesDir, layout.mailDir, layout.locksDir, layout.keysDir])
    ensurePrivateDir(dir);
  tightenDatabaseFiles(layout.root);
  tightenDatabaseFiles(layout.graphsDir);
  createSecretFile(layout.masterKeyFile, () => randomBytes(32).toString('base64') + '\n');
  if (!existsSync(layout.jwtPrivateKeyFile)) {
    const pair = generateKeyPairSync('ed25519');
    createSecretFile(layout.jwtPrivateKeyFile, () =>
      pair.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    );
    createSecretFile(layout.jwtPublicKeyFile, () => pair.publicKey.export({ format: 'pem', type: 'spki' }).toString());
  }
  for (const file of [layout.masterKeyFile, layout.jwtPrivateKeyFile, layout.jwtPublicKeyFile])
    tighten(file, PRIVATE_FILE_MODE);
}

export function readMasterKey(layout: DataDirLayout): Buffer {
  return Buffer.from(readFileSync(layout.masterKeyFile, 'utf8').trim(), 'base64');
}
