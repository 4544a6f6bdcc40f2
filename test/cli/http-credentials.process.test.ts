import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runNodectlInProcess, type CliRun } from '../helpers/cli-in-process.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { createApiKey } from '../../src/control/records/api-keys.js';
import { listOrganizations } from '../../src/control/records/organizations.js';
import { createWebsite } from '../../src/control/records/websites.js';
import { makeTempDir } from '../helpers/paths.js';
import { withControlDb } from '../helpers/seed.js';

/**
 * Where the CLI takes the daemon and the credential from, against a real spawned daemon: a flag
 * beats the environment (NODECTL_URL, NODECTL_API_KEY), which beats the session `nodectl login`
 * stored. The signed-in user owns the organization; its viewer API key cannot create connectors,
 * so which credential a call used shows in whether it may.
 */
const EMAIL = 'precedence@example.com';
const PASSWORD = 'a long enough password';
let daemon: TestDaemon;
let home: { dir: string; cleanup: () => void };
let websiteId: string;
let adminKey: string;
let viewerKey: string;
let sessionFile: string;
/** Nothing listens on port 1 of the loopback address. */
const unreachable = 'http://127.0.0.1:1';

function cli(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return runNodectlInProcess(args, {
    env: { XDG_CONFIG_HOME: home.dir, NODECTL_URL: '', NODECTL_API_KEY: '', NODECTL_PASSWORD: '', ...env },
  });
}
const ok = (run: CliRun) => {
  expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(0);
  return run;
};
const refreshToken = () => (JSON.parse(readFileSync(sessionFile, 'utf8')) as { refreshToken: string }).refreshToken;
/** An admin-only call: who made it shows in whether it was allowed. */
const createConnector = (args: string[] = [], env: Record<string, string> = {}) =>
  cli(['connectors', 'create', '--website', websiteId, '--type', 'files', '--source-types', 'page', ...args], env);

beforeAll(async () => {
  home = makeTempDir('nodectl-cli-credentials-');
  sessionFile = join(home.dir, 'nodectl', 'session.json');
  daemon = await startTestDaemon();
  const registered = await request(`${daemon.url}/v1/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: EMAIL, password: PASSWORD, orgName: 'Precedence' }),
  });
  expect(registered.statusCode, await registered.body.text()).toBe(201);
  // The operator's records, written in this process (the admin commands are not under test here).
  ({ websiteId, adminKey, viewerKey } = await withControlDb(daemon.dataDir, (db) => {
    const org = listOrganizations(db).find((o) => o.name === 'Precedence')!.id;
    return {
      websiteId: createWebsite(db, {
        organizationId: org,
        domain: 'precedence.example',
        name: 'Precedence',
        verifiedMethod: 'dns_txt',
      }).id,
      adminKey: createApiKey(db, { organizationId: org, role: 'organization_admin' }).key,
      viewerKey: createApiKey(db, { organizationId: org, role: 'viewer' }).key,
    };
  }));
  ok(await cli(['login', '--url', daemon.url, '--email', EMAIL], { NODECTL_PASSWORD: PASSWORD }));
}, 120_000);
afterAll(async () => {
  await daemon?.stop();
  home?.cleanup();
});

describe('flag > environment > session', () => {
  it('the session alone: an API-only command calls its daemon as the signed-in user (its refresh token rotates)', async () => {
    const before = refreshToken();
    expect(ok(await cli(['websites', 'get', websiteId])).stdout).toContain('precedence.example');
    ok(await createConnector());
    expect(refreshToken()).not.toBe(before);
  });

  it('the environment beats the session: NODECTL_API_KEY is used, the session is not touched', async () => {
    const before = refreshToken();
    const asViewer = await createConnector([], { NODECTL_API_KEY: viewerKey });
    expect(asViewer.exitCode).toBe(1);
    expect(asViewer.stderr).toContain('nodectl: [auth.forbidden]');
    expect(refreshToken()).toBe(before);
  });

  it('a flag beats the environment: --api-key over NODECTL_API_KEY, --url over NODECTL_URL', async () => {
    ok(await createConnector(['--api-key', adminKey], { NODECTL_API_KEY: viewerKey }));
    expect((await createConnector(['--api-key', viewerKey], { NODECTL_API_KEY: adminKey })).stderr).toContain(
      '[auth.forbidden]',
    );
    ok(await createConnector(['--url', daemon.url], { NODECTL_URL: unreachable, NODECTL_API_KEY: adminKey }));
    const flagUnreachable = await createConnector(['--url', unreachable], {
      NODECTL_URL: daemon.url,
      NODECTL_API_KEY: adminKey,
    });
    expect(flagUnreachable.exitCode).toBe(1);
    expect(flagUnreachable.stderr).toContain(`[network.error] cannot reach ${unreachable}`);
  });

  it('the environment beats the session for the URL too: the session is only ever sent to its own daemon', async () => {
    // The same daemon under another origin: a URL the session was not issued for.
    const otherOrigin = daemon.url.replace('127.0.0.1', 'localhost');
    const before = refreshToken();
    const refused = await createConnector([], { NODECTL_URL: otherOrigin });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain(
      `nodectl: the nodectl login session is for ${daemon.url}, not ${otherOrigin}: give --api-key <key> (or NODECTL_API_KEY)`,
    );
    expect(refreshToken()).toBe(before);
    ok(await createConnector([], { NODECTL_URL: otherOrigin, NODECTL_API_KEY: adminKey }));
    // A key without a URL goes to the session's daemon.
    ok(await createConnector(['--api-key', adminKey]));
    expect(refreshToken()).toBe(before);
  });

  it('a session alone never turns a command with a local form remote; a URL or key does', async () => {
    const localRun = ok(await cli(['--data-dir', daemon.dataDir, 'versions', '--website', websiteId]));
    expect(localRun.stdout).toBe(`no published versions of ${websiteId} in ${join(daemon.dataDir, 'nodes')}`);
    const remoteRun = ok(
      await cli(['--data-dir', daemon.dataDir, 'versions', '--website', websiteId], { NODECTL_URL: daemon.url }),
    );
    expect(remoteRun.stdout).toBe(`no published versions of ${websiteId} in ${daemon.url}`);
  });

  it('without any: exit 2 naming what to give; a bad NODECTL_URL or NODECTL_API_KEY is named too; a damaged session is a failure', async () => {
    const noHome = makeTempDir('nodectl-no-session-');
    try {
      const nothing = await cli(['websites', 'list'], { XDG_CONFIG_HOME: noHome.dir });
      expect(nothing.exitCode).toBe(2);
      expect(nothing.stderr).toBe(
        'nodectl: no daemon to call: give --url <http(s)://host:port> (or NODECTL_URL), or sign in once with nodectl login --url <daemon> --email <you>',
      );
      const noKey = await cli(['websites', 'list', '--url', daemon.url], { XDG_CONFIG_HOME: noHome.dir });
      expect(noKey.exitCode).toBe(2);
      expect(noKey.stderr).toContain(
        `nodectl: no credential for ${daemon.url}: give --api-key <key> (or NODECTL_API_KEY)`,
      );
    } finally {
      noHome.cleanup();
    }
    const badEnvUrl = await cli(['websites', 'list'], { NODECTL_URL: 'localhost:8787' });
    expect(badEnvUrl.exitCode).toBe(2);
    expect(badEnvUrl.stderr).toBe(
      'nodectl: NODECTL_URL must be an http(s) URL such as http://127.0.0.1:8787 (got "localhost:8787")',
    );
    expect((await cli(['websites', 'list'], { NODECTL_API_KEY: 'key' })).stderr).toContain(
      'nodectl: NODECTL_API_KEY must be an API key',
    );
    const damagedHome = makeTempDir('nodectl-damaged-session-');
    try {
      mkdirSync(join(damagedHome.dir, 'nodectl'));
      writeFileSync(join(damagedHome.dir, 'nodectl', 'session.json'), '{"version": 1}');
      const damaged = await cli(['websites', 'list'], { XDG_CONFIG_HOME: damagedHome.dir });
      expect(damaged.exitCode).toBe(1);
      expect(damaged.stderr).toContain('is not a session nodectl wrote; remove it and run nodectl login again.');
    } finally {
      damagedHome.cleanup();
    }
  });
});
