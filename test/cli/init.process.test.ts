import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runNodectl, type CliRun } from '../helpers/cli.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { makeTempDir, PROJECT_ROOT } from '../helpers/paths.js';
import { seedApiKey, seedConnector, seedDataDir, type SeededSite } from '../helpers/seed.js';

/**
 * `nodectl init` writes nodectl.json (daemon URL, website id, domain; never a secret), and push,
 * publish and jobs run in that folder with only the secrets in the environment: what a CI job needs.
 */
const DOMAIN = 'blog.fieldnotes.example';
const temp = makeTempDir('nodectl-init-');
let daemon: TestDaemon;
let site: SeededSite;
let apiKey: string;
let token: string;

function ok(run: CliRun): CliRun {
  if (run.exitCode !== 0) throw new Error(`exit ${run.exitCode}\n${run.stdout}\n${run.stderr}`);
  return run;
}

function folder(name: string): string {
  const dir = join(temp.dir, name);
  mkdirSync(dir);
  return dir;
}

beforeAll(async () => {
  daemon = await startTestDaemon();
  site = await seedDataDir(daemon.dataDir, { domain: DOMAIN });
  apiKey = await seedApiKey(daemon.dataDir, site.orgId, 'editor');
  token = (
    await seedConnector(daemon.dataDir, site.websiteId, {
      type: 'files',
      sourceTypes: ['page', 'post', 'profile', 'collection'],
    })
  ).token;
}, 60_000);

afterAll(async () => {
  await daemon?.stop();
  temp.cleanup();
});

describe('nodectl init', () => {
  it('writes nodectl.json that push, jobs and publish read, with only the secrets in the environment', async () => {
    const cwd = folder('project');
    const init = ok(
      await runNodectl(['init', '--url', `${daemon.url}/`, '--website', site.websiteId, '--domain', DOMAIN], {
        cwd,
      }),
    );
    expect(init.stdout).toContain('NODECTL_API_KEY');
    const written = JSON.parse(readFileSync(join(cwd, 'nodectl.json'), 'utf8'));
    expect(written).toEqual({ url: daemon.url, website: site.websiteId, domain: DOMAIN });
    expect(JSON.stringify(written)).not.toContain(apiKey);

    const items = join(PROJECT_ROOT, 'fixtures', 'blog', 'items.jsonl');
    ok(await runNodectl(['push', items], { cwd, env: { NODECTL_CONNECTOR_TOKEN: token } }));
    const env = { NODECTL_API_KEY: apiKey };
    ok(await runNodectl(['jobs', 'wait', '--timeout', '120'], { cwd, env }));
    const published = ok(await runNodectl(['--json', 'publish'], { cwd, env })).json();
    expect(published.versionUlid).toMatch(/^[0-9A-Z]{26}$/);
    const jobs = ok(await runNodectl(['--json', 'jobs', 'list'], { cwd, env })).json();
    expect(jobs.map((j: { kind: string }) => j.kind)).toContain('content.ingest');
  });

  it('puts the flags and the environment above the file', async () => {
    const cwd = folder('precedence');
    writeFileSync(join(cwd, 'nodectl.json'), JSON.stringify({ url: 'http://127.0.0.1:9', website: 'web_elsewhere' }));
    const env = { NODECTL_API_KEY: apiKey };
    // NODECTL_URL beats the file's url, --website the file's website.
    ok(
      await runNodectl(['jobs', 'list', '--website', site.websiteId], {
        cwd,
        env: { ...env, NODECTL_URL: daemon.url },
      }),
    );
    // NODECTL_WEBSITE beats the file's website: a website this key cannot see.
    const other = await runNodectl(['jobs', 'list'], {
      cwd,
      env: { ...env, NODECTL_URL: daemon.url, NODECTL_WEBSITE: 'web_missing' },
    });
    expect(other.exitCode).toBe(1);
  });

  it('refuses a bad value, an existing file, and a secret; a bad file names the file and the field', async () => {
    const cwd = folder('bad');
    const badUrl = await runNodectl(['init', '--url', 'ftp://x', '--website', 'web_1'], { cwd });
    expect(badUrl).toMatchObject({ exitCode: 2, stderr: expect.stringContaining('--url must be an http(s) URL') });
    const missing = await runNodectl(['init', '--url', 'http://127.0.0.1:8787'], { cwd });
    expect(missing).toMatchObject({ exitCode: 2, stderr: expect.stringContaining('--website <id> is required') });

    ok(await runNodectl(['init', '--url', 'http://127.0.0.1:8787', '--website', 'web_1'], { cwd }));
    const again = await runNodectl(['init', '--url', 'http://127.0.0.1:8787', '--website', 'web_2'], { cwd });
    expect(again).toMatchObject({ exitCode: 2, stderr: expect.stringContaining('--force') });
    ok(await runNodectl(['init', '--url', 'http://127.0.0.1:8787', '--website', 'web_2', '--force'], { cwd }));

    const file = join(cwd, 'nodectl.json');
    writeFileSync(file, JSON.stringify({ url: 'http://127.0.0.1:8787', website: 'web 1' }));
    const badWebsite = await runNodectl(['jobs', 'list'], { cwd });
    expect(badWebsite).toMatchObject({ exitCode: 2, stderr: expect.stringContaining(`${file}: website must be`) });
    writeFileSync(file, JSON.stringify({ url: 'http://127.0.0.1:8787', website: 'web_1', apiKey: 'nk_live_x' }));
    const secret = await runNodectl(['push', '.'], { cwd });
    expect(secret).toMatchObject({
      exitCode: 2,
      stderr: expect.stringContaining(`${file}: apiKey: a secret never goes`),
    });
    writeFileSync(file, '{ not json');
    const notJson = await runNodectl(['publish'], { cwd });
    expect(notJson).toMatchObject({ exitCode: 2, stderr: expect.stringContaining(`${file} is not valid JSON`) });
  });
});
