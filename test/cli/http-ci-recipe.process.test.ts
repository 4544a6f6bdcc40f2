import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { makeTempDir, PROJECT_ROOT } from '../helpers/paths.js';
import { seedApiKey, seedConnector, seedDataDir } from '../helpers/seed.js';

/** The GitHub Actions job of the README's CI recipe, as a reader copies it. */
function ciRecipe(): string {
  const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');
  const block = /<!-- ci-recipe:begin -->\n```yaml\n([\s\S]*?)```\n<!-- ci-recipe:end -->/.exec(readme);
  if (!block) throw new Error('README.md has no ci-recipe:begin/end block');
  return block[1]!;
}

let daemon: TestDaemon;
let work: { dir: string; cleanup: () => void };

beforeAll(async () => {
  work = makeTempDir('nodectl-ci-recipe-');
  daemon = await startTestDaemon();
}, 60_000);
afterAll(async () => {
  await daemon?.stop();
  work?.cleanup();
});

describe("the README's CI recipe", () => {
  it('pushes a folder, waits for its ingest and publishes over HTTP with an API key, step by step as written', async () => {
    const recipe = ciRecipe();
    // The job's environment: the daemon's address stands for the recipe's, the secrets and variables are the test's.
    const envNames = [...recipe.matchAll(/^ {6}([A-Z_]+): /gm)].map((m) => m[1]);
    expect(envNames).toEqual(['NODECTL_URL', 'NODECTL_API_KEY', 'NODECTL_CONNECTOR_TOKEN']);
    // The operator's part (website, editor key, connector), seeded in this process: the recipe is what is under test.
    const site = await seedDataDir(daemon.dataDir, { domain: 'example.com' });
    const editorKey = await seedApiKey(daemon.dataDir, site.orgId, 'editor');
    const { token } = await seedConnector(daemon.dataDir, site.websiteId, { type: 'files', sourceTypes: ['page'] });
    // The repository the job checks out: a folder of Markdown pages.
    mkdirSync(join(work.dir, 'content'));
    writeFileSync(
      join(work.dir, 'content', 'index.md'),
      '# Example\n\nExample sells hand-made ceramic mugs from its workshop in Lisbon.\n',
    );
    writeFileSync(
      join(work.dir, 'content', 'about.md'),
      '---\ntitle: About us\n---\nThe workshop was founded in 2019 by two potters.\n',
    );

    // Every run step but the install (this checkout's bin/ is on the PATH instead), with ${{ vars.X }} and ${{ secrets.X }} as shell variables.
    const steps = [...recipe.matchAll(/^ {6}- run: (.+)$/gm)].map((m) => m[1]!);
    expect(steps[0]).toBe('npm install --global nodectl');
    const script = steps
      .slice(1)
      .map((step) => step.replace(/\$\{\{ (?:vars|secrets)\.([A-Z_]+) \}\}/g, '$$$1'))
      .join('\n');
    const run = await execa('bash', ['-e', '-o', 'pipefail', '-c', script], {
      cwd: work.dir,
      reject: false,
      env: {
        PATH: `${join(PROJECT_ROOT, 'bin')}:${process.env.PATH}`,
        XDG_CONFIG_HOME: work.dir,
        NODECTL_URL: daemon.url,
        NODECTL_API_KEY: editorKey,
        NODECTL_CONNECTOR_TOKEN: token,
        WEBSITE_ID: site.websiteId,
        NODECTL_LOG_LEVEL: 'warn',
      },
      timeout: 120_000,
    });
    expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toMatch(/accepted 2, skipped 0, errored 0/);
    expect(run.stdout).toMatch(/no content\.ingest job pending \(1 succeeded, 0 dead\)/);
    expect(run.stdout).toMatch(new RegExp(`published \\w{26} \\(\\d{4}-\\d{2}-\\d{2}\\.1\\) to ${daemon.url}`));
    const manifest = await fetch(`${daemon.url}/nodes/example.com/manifest.json`);
    expect(manifest.status).toBe(200);
  }, 150_000);
});
