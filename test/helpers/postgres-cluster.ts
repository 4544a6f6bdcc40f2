import { spawn, execFile, execFileSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { poll } from './until.js';

/**
 * A throw-away PostgreSQL server for the controlStore tests: initdb into a temporary folder, then
 * postgres on a free loopback port (its socket in the same folder), removed by stop(). Started by
 * the global setup test/setup/postgres.ts when a test file asks for one (test/helpers/postgres.ts),
 * so app tests, which may start no process, use it too. PostgreSQL refuses to run as root (CI runs
 * as root): then initdb and postgres run as the `postgres` user Debian's package creates.
 */
export interface PostgresCluster {
  /** postgres://nodectl@127.0.0.1:<port>/postgres: the superuser, trusted on loopback only. */
  readonly url: string;
  stop(): Promise<void>;
}

const INSTALL_HINT =
  "run `sh scripts/ensure-test-tools.sh` (it installs Debian's postgresql package), or `apt-get install postgresql`";

/** The bin folder of the newest PostgreSQL installed by Debian's packages. */
export function postgresBinDir(): string {
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root)
    ? readdirSync(root)
        .filter((name) => /^\d+$/.test(name) && existsSync(join(root, name, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (majors.length === 0)
    throw new Error(`PostgreSQL is not installed (no /usr/lib/postgresql/<major>/bin/initdb): ${INSTALL_HINT}`);
  return join(root, majors[0]!, 'bin');
}

/** Who initdb and postgres run as: this user, or `postgres` when this is root. */
function runAs(folder: string): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  let ids: string[];
  try {
    ids = ['-u', '-g'].map((flag) => execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  } catch {
    throw new Error(`PostgreSQL refuses to run as root and there is no postgres user: ${INSTALL_HINT}`);
  }
  const [uid, gid] = ids.map(Number) as [number, number];
  chownSync(folder, uid, gid);
  return { uid, gid };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Whether a connection to `url` is accepted now. */
async function accepts(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

export async function startPostgresCluster(): Promise<PostgresCluster> {
  const bin = postgresBinDir();
  const folder = mkdtempSync(join(tmpdir(), 'nodectl-pg-'));
  const data = join(folder, 'data');
  const user = runAs(folder);
  try {
    // No fsync anywhere: the cluster lives as long as the run and is removed after it.
    await promisify(execFile)(
      join(bin, 'initdb'),
      ['-D', data, '-U', 'nodectl', '-A', 'trust', '-E', 'UTF8', '--no-locale', '--no-sync'],
      { ...user, cwd: folder },
    );
  } catch (error) {
    rmSync(folder, { recursive: true, force: true });
    throw new Error(`initdb failed: ${(error as { stderr?: string }).stderr ?? (error as Error).message}`, {
      cause: error,
    });
  }
  const port = await freePort();
  const url = `postgres://nodectl@127.0.0.1:${port}/postgres`;
  const server: ChildProcess = spawn(
    join(bin, 'postgres'),
    ['-D', data, '-h', '127.0.0.1', '-p', String(port), '-k', folder]
      .concat(['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'])
      .concat(['-c', 'max_connections=300']),
    { ...user, cwd: folder, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let output = '';
  server.stderr!.on('data', (chunk: Buffer) => void (output = (output + chunk.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  let gone = false;
  void exited.then(() => (gone = true));
  const stop = async () => {
    // SIGQUIT: immediate shutdown, there is nothing to keep.
    if (!gone) server.kill('SIGQUIT');
    await exited;
    rmSync(folder, { recursive: true, force: true });
  };
  try {
    await poll(
      async () => {
        if (gone) throw new Error(`postgres exited before accepting connections:\n${output}`);
        return (await accepts(url)) ? true : undefined;
      },
      `postgres to accept connections on port ${port}`,
      { timeoutMs: 60_000, intervalMs: 50 },
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, stop };
}
