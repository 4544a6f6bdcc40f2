import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { runNodectl, type CliRun } from './cli.js';
import { runNodectlInProcess } from './cli-in-process.js';
import { startTestDaemon, type TestDaemon } from './daemon.js';
import { makeTempDir } from './paths.js';
import { seedApiKey, seedDataDir } from './seed.js';

/**
 * What the CLI-over-HTTP tests share: a spawned daemon with one website, an organization_admin
 * and a viewer API key, a local webhook receiver answering 204, and the CLI run in this process
 * (runNodectlInProcess: what is tested is what the commands print) with a config home of its own
 * (no URL, key or session of the environment running the tests).
 */
export interface CliHttpFixture {
  daemon: TestDaemon;
  site: { orgId: string; websiteId: string };
  adminKey: string;
  viewerKey: string;
  /** A loopback webhook endpoint that answers 204. */
  receiverUrl: string;
  cli(args: string[], env?: Record<string, string>): Promise<CliRun>;
  /** The command as the daemon's API sees it (--url, --api-key; the admin key by default). */
  remote(args: string[], key?: string): Promise<CliRun>;
  /** The command on the daemon's data directory. */
  local(args: string[]): Promise<CliRun>;
  /** remote() run by the built binary in a process of its own, as a user runs it. */
  remoteBinary(args: string[], key?: string): Promise<CliRun>;
  stop(): Promise<void>;
}

/** Expects exit 0 (printing the output otherwise) and returns the run. */
export function ok(run: CliRun): CliRun {
  expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(0);
  return run;
}

export async function startCliHttpFixture(options: {
  domain: string;
  tempPrefix: string;
  env?: Record<string, string>;
}): Promise<CliHttpFixture> {
  const home = makeTempDir(options.tempPrefix);
  const receiver: Server = createServer((_req, res) => res.writeHead(204).end());
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const daemon = await startTestDaemon({ env: { ...options.env, NODECTL_FETCH_ALLOW_PRIVATE_ADDRESSES: 'true' } });
  const env = { XDG_CONFIG_HOME: home.dir, NODECTL_URL: '', NODECTL_API_KEY: '', ...options.env };
  const cli = (args: string[], more: Record<string, string> = {}) =>
    runNodectlInProcess(args, { env: { ...env, ...more } });
  const local = (args: string[]) => cli(['--data-dir', daemon.dataDir, ...args]);
  // Seeded in this process: the commands under test are the HTTP ones.
  const site = await seedDataDir(daemon.dataDir, { domain: options.domain, plan: 'pro' });
  const adminKey = await seedApiKey(daemon.dataDir, site.orgId, 'organization_admin');
  const viewerKey = await seedApiKey(daemon.dataDir, site.orgId, 'viewer');
  return {
    daemon,
    site,
    adminKey,
    viewerKey,
    cli,
    local,
    receiverUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
    remote: (args, apiKey = adminKey) => cli([...args, '--url', daemon.url, '--api-key', apiKey]),
    remoteBinary: (args, apiKey = adminKey) => runNodectl([...args, '--url', daemon.url, '--api-key', apiKey], { env }),
    async stop() {
      await daemon.stop();
      await new Promise((resolve) => receiver.close(resolve));
      home.cleanup();
    },
  };
}
