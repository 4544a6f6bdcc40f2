import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { makeTempDir, PROJECT_ROOT } from '../helpers/paths.js';
import { seedApiKey, seedConnector, seedDataDir } from '../helpers/seed.js';

/**
 * The package as a user gets it: `npm pack` of this checkout (its build; `npm run build` first),
 * installed globally into a temporary prefix by the README's CI recipe's own install step, then
 * run from there: --version, compile, serve, the typed clients, and the rest of the recipe.
 */
const manifest = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
};

/** The GitHub Actions job of the README's CI recipe, as a reader copies it. */
function ciRecipe(): string {
  const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');
  const block = /<!-- ci-recipe:begin -->\n```yaml\n([\s\S]*?)```\n<!-- ci-recipe:end -->/.exec(readme);
  if (!block) throw new Error('README.md has no ci-recipe:begin/end block');
  return block[1]!;
}
const recipeSteps = (): string[] => [...ciRecipe().matchAll(/^ {6}- run: (.+)$/gm)].map((m) => m[1]!);

// npm runs as the machine's user would (its own config and cache), not in the test's sandboxed HOME.
const npmEnv = { HOME: userInfo().homedir };

let temp: { dir: string; cleanup: () => void };
let prefix: string;
let installedBin: string;
let packedFiles: string[];
let daemon: TestDaemon | undefined;

beforeAll(async () => {
  temp = makeTempDir('nodectl-installed-');
  prefix = join(temp.dir, 'prefix');
  // --ignore-scripts: prepack's clean build would empty the dist/ that other test files run from.
  const pack = await execa('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', temp.dir], {
    cwd: PROJECT_ROOT,
    env: npmEnv,
  });
  const [packed] = JSON.parse(pack.stdout) as [{ filename: string; files: Array<{ path: string }> }];
  packedFiles = packed.files.map((file) => file.path);
  const tarball = join(temp.dir, packed.filename);

  // The recipe's install step with the tarball for the registry's package, into the prefix; npm's cache
  // first (--prefer-offline), the registry only for what the cache lacks.
  const install = recipeSteps()[0]!;
  expect(install).toBe(`npm install --global ${manifest.name}`);
  await execa(
    'bash',
    ['-e', '-c', `${install.replace(manifest.name, tarball)} --prefer-offline --no-audit --no-fund`],
    {
      env: { ...npmEnv, npm_config_prefix: prefix },
      timeout: 1_500_000,
    },
  );
  installedBin = join(prefix, 'bin', 'nodectl');
}, 1_600_000);

afterAll(async () => {
  await daemon?.stop();
  temp?.cleanup();
});

describe('the packed package', () => {
  it('ships the build, the launcher, the docs and the schemas, and no tests or sources', () => {
    for (const path of ['package.json', 'README.md', 'bin/nodectl', 'dist/cli/main.js', 'dist/sdk/api/index.d.ts'])
      expect(packedFiles).toContain(path);
    expect(packedFiles.some((path) => path.startsWith('docs/'))).toBe(true);
    expect(packedFiles).toContain('schemas/manifest.schema.json');
    const unwanted = packedFiles.filter((path) =>
      /^(?:test|src|bench|scripts|fixtures|golden)\/|\.map$|\.tsbuildinfo$|^package-lock\.json$/.test(path),
    );
    expect(unwanted).toEqual([]);
  });
});

describe('the package installed globally', () => {
  it('nodectl --version prints the package version', async () => {
    const run = await execa(installedBin, ['--version'], { reject: false });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe(manifest.version);
  });

  it('compiles a fixture, and gives the committed golden node for it', async () => {
    const out = join(temp.dir, 'minimal-node');
    const compile = await execa(installedBin, ['compile', join(PROJECT_ROOT, 'fixtures', 'minimal'), '--out', out], {
      reject: false,
      env: { NODECTL_LOG_LEVEL: 'warn' },
    });
    expect(compile.exitCode, `${compile.stdout}\n${compile.stderr}`).toBe(0);
    expect(existsSync(join(out, 'manifest.json'))).toBe(true);
    const golden = await execa(installedBin, ['golden', 'check', 'minimal'], { cwd: PROJECT_ROOT, reject: false });
    expect(golden.exitCode, `${golden.stdout}\n${golden.stderr}`).toBe(0);
  });

  it(`import('${manifest.name}'), '/client' and '/api' load from the installed package`, async () => {
    // A script beside the global node_modules resolves the package as any dependent would.
    const probe = join(prefix, 'lib', 'probe.mjs');
    writeFileSync(
      probe,
      `const root = await import('${manifest.name}');
const client = await import('${manifest.name}/client');
const api = await import('${manifest.name}/api');
console.log(JSON.stringify({ root: typeof root.signRequest, same: root.signRequest === client.signRequest, api: typeof api.createApiClient }));
`,
    );
    const run = await execa('node', [probe], { reject: false });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ root: 'function', same: true, api: 'function' });
  });

  it('nodectl serve answers /readyz, and the CI recipe pushes, waits and publishes against it', async () => {
    daemon = await startTestDaemon({ bin: installedBin });
    const ready = await fetch(`${daemon.url}/readyz`);
    expect(ready.status).toBe(200);

    const recipe = ciRecipe();
    // The job's environment: the daemon's address stands for the recipe's, the secrets and variables are the test's.
    const envNames = [...recipe.matchAll(/^ {6}([A-Z_]+): /gm)].map((m) => m[1]);
    expect(envNames).toEqual(['NODECTL_URL', 'NODECTL_API_KEY', 'NODECTL_CONNECTOR_TOKEN']);
    // The operator's part (website, editor key, connector), seeded in this process: the recipe is what is under test.
    const site = await seedDataDir(daemon.dataDir, { domain: 'example.com' });
    const editorKey = await seedApiKey(daemon.dataDir, site.orgId, 'editor');
    const { token } = await seedConnector(daemon.dataDir, site.websiteId, { type: 'files', sourceTypes: ['page'] });
    // The repository the job checks out: a folder of Markdown pages.
    const work = join(temp.dir, 'checkout');
    mkdirSync(join(work, 'content'), { recursive: true });
    writeFileSync(
      join(work, 'content', 'index.md'),
      '# Example\n\nExample sells hand-made ceramic mugs from its workshop in Lisbon.\n',
    );
    writeFileSync(
      join(work, 'content', 'about.md'),
      '---\ntitle: About us\n---\nThe workshop was founded in 2019 by two potters.\n',
    );

    // The steps after the install, with ${{ vars.X }} and ${{ secrets.X }} as shell variables, the prefix's bin first on the PATH.
    const script = recipeSteps()
      .slice(1)
      .map((step) => step.replace(/\$\{\{ (?:vars|secrets)\.([A-Z_]+) \}\}/g, '$$$1'))
      .join('\n');
    const run = await execa('bash', ['-e', '-o', 'pipefail', '-c', script], {
      cwd: work,
      reject: false,
      env: {
        PATH: `${join(prefix, 'bin')}:${process.env.PATH}`,
        XDG_CONFIG_HOME: work,
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
    const node = await fetch(`${daemon.url}/nodes/example.com/manifest.json`);
    expect(node.status).toBe(200);
  }, 150_000);
});
