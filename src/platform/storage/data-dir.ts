import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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

/** Writes a secret file with mode 0600 unless it exists; if another process wins the race, theirs stays. */
function createSecretFile(file: string, contents: () => string): void {
  if (existsSync(file)) return;
  try {
    writeFileSync(file, contents(), { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/**
 * Creates the folders, the master key and the token signing key pair (files mode 0600) if they
 * are missing. Safe to call repeatedly and from several processes at once.
 */
export function ensureDataDir(layout: DataDirLayout): void {
  for (const dir of [layout.root, layout.graphsDir, layout.nodesDir, layout.mailDir, layout.locksDir])
    mkdirSync(dir, { recursive: true });
  mkdirSync(layout.keysDir, { recursive: true, mode: 0o700 });
  createSecretFile(layout.masterKeyFile, () => randomBytes(32).toString('base64') + '\n');
  if (!existsSync(layout.jwtPrivateKeyFile)) {
    const pair = generateKeyPairSync('ed25519');
    createSecretFile(layout.jwtPrivateKeyFile, () =>
      pair.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    );
    createSecretFile(layout.jwtPublicKeyFile, () => pair.publicKey.export({ format: 'pem', type: 'spki' }).toString());
  }
  for (const file of [layout.masterKeyFile, layout.jwtPrivateKeyFile, layout.jwtPublicKeyFile])
    if (existsSync(file)) chmodSync(file, 0o600);
}

export function readMasterKey(layout: DataDirLayout): Buffer {
  return Buffer.from(readFileSync(layout.masterKeyFile, 'utf8').trim(), 'base64');
}
