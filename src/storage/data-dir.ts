import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';

/** Where everything of one nodectl installation lives. */
export interface DataDirLayout {
  readonly root: string;
  readonly controlDb: string;
  readonly graphsDir: string;
  readonly nodesDir: string;
  readonly mailDir: string;
  readonly keysDir: string;
  readonly masterKeyFile: string;
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
    locksDir: join(abs, 'locks'),
  };
}

/** The graph database file of one website. Website ids are validated before they reach a path. */
export function graphDbPath(layout: DataDirLayout, websiteId: string): string {
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(websiteId)) throw new Error(`invalid website id for a file name: ${websiteId}`);
  return join(layout.graphsDir, `${websiteId}.sqlite`);
}

/** Creates the folders and the master key (mode 0600) if they are missing. Safe to call repeatedly. */
export function ensureDataDir(layout: DataDirLayout): void {
  for (const dir of [layout.root, layout.graphsDir, layout.nodesDir, layout.mailDir, layout.locksDir]) mkdirSync(dir, { recursive: true });
  mkdirSync(layout.keysDir, { recursive: true, mode: 0o700 });
  if (!existsSync(layout.masterKeyFile)) {
    try {
      // 'wx' fails if another process created it first; theirs wins.
      writeFileSync(layout.masterKeyFile, randomBytes(32).toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  chmodSync(layout.masterKeyFile, 0o600);
}

export function readMasterKey(layout: DataDirLayout): Buffer {
  return Buffer.from(readFileSync(layout.masterKeyFile, 'utf8').trim(), 'base64');
}
