import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { userInfo } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { makeTempDir, PROJECT_ROOT } from '../helpers/paths.js';
import { seedApiKey, seedConnector, seedDataDir } from '../helpers/seed.js';

/**
 * The package as a user gets it, packed once and installed twice by the README CI recipe's own
 * install step (`npm install --global @nodectl/cli`) into temporary prefixes:
 * - on Node.js 22, the documented runtime (the npm registry's `node@22` package brings the binary and
 *   its headers): a full install, building better-sqlite3 for Node 22, then --version, compile, serve,
 *   the typed clients and the rest of the recipe;
 * - on the machine's Node.js 20: the same install with --ignore-scripts, then --version, compile, serve.
 * The package is this checkout's build (`npm run build` first).
 */
const manifest = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  scripts: Record<string, string>;
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
const SHRINKWRAP_STEP = 'node scripts/shrinkwrap.mjs .';

let temp: { dir: string; cleanup: () => void };
let packedFiles: string[];
let registry: Server | undefined;
let node22: string;
/** Each runtime's install: its prefix, the package's launcher in it, and what npm printed. */
const on22 = { prefix: '', bin: '', output: '' };
const on20 = { prefix: '', bin: '', output: '' };
const daemons: TestDaemon[] = [];

/** The environment the daemon's process runs with now (after any exec), one NAME=value per entry. */
const environmentOf = (daemon: TestDaemon): string[] =>
  readFileSync(`/proc/${daemon.process.pid}/environ`, 'utf8').split('\0');

/**
 * What `npm pack` in the checkout gives, without its scripts: prepack's clean build would empty the
 * dist/ that other test files run from. The files npm would pack are staged in a folder of the test's
 * with package-lock.json, prepack's shrinkwrap step runs there, and npm packs the staged folder.
 */
async function packOnce(): Promise<string> {
  const listed = await execa('npm', ['pack', '--dry-run', '--ignore-scripts', '--json'], {
    cwd: PROJECT_ROOT,
    env: npmEnv,
  });
  const stage = join(temp.dir, 'stage');
  for (const { path } of (JSON.parse(listed.stdout) as [{ files: Array<{ path: string }> }])[0].files) {
    mkdirSync(dirname(join(stage, path)), { recursive: true });
    copyFileSync(join(PROJECT_ROOT, path), join(stage, path));
  }
  copyFileSync(join(PROJECT_ROOT, 'package-lock.json'), join(stage, 'package-lock.json'));
  expect(manifest.scripts.prepack).toContain(SHRINKWRAP_STEP);
  await execa('node', [join(PROJECT_ROOT, SHRINKWRAP_STEP.split(' ')[1]!), stage]);
  const pack = await execa('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', temp.dir], {
    cwd: stage,
    env: npmEnv,
  });
  const [packed] = JSON.parse(pack.stdout) as [{ filename: string; files: Array<{ path: string }> }];
  packedFiles = packed.files.map((file) => file.path);
  return join(temp.dir, packed.filename);
}

/**
 * Serves the tarball as the npm registry serves a published version, for the @nodectl scope only (the
 * rest comes from the machine's registry and cache): npm follows a package's npm-shrinkwrap.json when
 * the registry's metadata says it has one (`_hasShrinkwrap`), never for a tarball named by its path.
 * The folder name is new each run, so npm's cache holds no metadata of an earlier tarball for it.
 */
async function serveRegistry(tarball: string): Promise<string> {
  const body = readFileSync(tarball);
  const staged = JSON.parse(readFileSync(join(temp.dir, 'stage', 'package.json'), 'utf8')) as object;
  const base = `/${randomBytes(8).toString('hex')}/`;
  const tarballPath = `${base}-/cli-${manifest.version}.tgz`;
  registry = createServer((request, response) => {
    const url = `http://${request.headers.host}`;
    if (request.url === `${base}${manifest.name.replace('/', '%2f')}`) {
      const version = {
        ...staged,
        _hasShrinkwrap: packedFiles.includes('npm-shrinkwrap.json'),
        dist: {
          tarball: `${url}${tarballPath}`,
          integrity: `sha512-${createHash('sha512').update(body).digest('base64')}`,
          shasum: createHash('sha1').update(body).digest('hex'),
        },
      };
      const packument = {
        name: manifest.name,
        'dist-tags': { latest: manifest.version },
        versions: { [manifest.version]: version },
      };
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(packument));
    } else if (request.url === tarballPath) {
      response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(body);
    } else response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
  });
  await new Promise<void>((resolve) => registry!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(registry.address() as AddressInfo).port}${base}`;
}

/** Node.js 22 from the npm registry's `node@22` package; returns the folder of node-gyp's headers for it. */
async function installNode22(): Promise<string> {
  const runtime = join(temp.dir, 'runtime');
  await execa(
    'npm',
    ['install', '--prefix', runtime, '--no-save', '--prefer-offline', '--no-audit', '--no-fund', 'node@22'],
    { env: npmEnv, timeout: 600_000 },
  );
  node22 = join(runtime, 'node_modules', 'node', 'bin', 'node');
  // The platform package node@22 installs holds the headers node-gyp builds native modules against.
  return join(runtime, 'node_modules', 'node', 'node_modules', `node-${process.platform}-${process.arch}`);
}

/** The recipe's install step, with npm's cache first (the registry only for what it lacks), into `prefix`. */
async function installGlobally(
  target: typeof on22,
  prefix: string,
  options: { flags?: string[]; env: Record<string, string> },
): Promise<void> {
  const install = recipeSteps()[0]!;
  expect(install).toBe(`npm install --global ${manifest.name}`);
  const run = await execa(
    'bash',
    ['-e', '-c', [install, '--prefer-offline', '--no-audit', '--no-fund', ...(options.flags ?? [])].join(' ')],
    { env: { ...npmEnv, npm_config_prefix: prefix, ...options.env }, all: true, timeout: 1_500_000 },
  );
  Object.assign(target, {
    prefix,
    bin: join(prefix, 'bin', 'nodectl'),
    output: run.all ?? '',
  });
}

/** The package's folder in a prefix. */
const installedPackage = (prefix: string, ...path: string[]) =>
  join(prefix, 'lib', 'node_modules', ...manifest.name.split('/'), ...path);

/** The installed package's releaseFreedMemory, called by `node` (null where there is no glibc or koffi would not load). */
async function releaseFreedMemoryIn(prefix: string, node: string): Promise<unknown> {
  const memory = pathToFileURL(installedPackage(prefix, 'dist', 'platform', 'memory', 'index.js')).href;
  const script = `const { releaseFreedMemory } = await import(${JSON.stringify(memory)});
console.log(JSON.stringify(await releaseFreedMemory()));`;
  const run = await execa(node, ['--input-type=module', '-e', script], { reject: false });
  expect(run.exitCode, run.stderr).toBe(0);
  return JSON.parse(run.stdout);
}
const RELEASED = { rssBeforeBytes: expect.any(Number), rssAfterBytes: expect.any(Number), ms: expect.any(Number) };

beforeAll(async () => {
  temp = makeTempDir('nodectl-installed-');
  const registryUrl = packOnce().then(serveRegistry);
  const headers22 = installNode22();
  // npm asks the test's registry for the package's scope only.
  const withRegistry = async () => ({ [`npm_config_${manifest.name.split('/')[0]}:registry`]: await registryUrl });
  await Promise.all([
    // Node 22: the whole install, better-sqlite3 built for it by node-gyp, with Node 22 first on the
    // PATH (the machine's npm then runs on it, and so do the install scripts).
    (async () => {
      const [nodeDir, registryEnv] = await Promise.all([headers22, withRegistry()]);
      await installGlobally(on22, join(temp.dir, 'prefix-22'), {
        env: {
          ...registryEnv,
          PATH: `${dirname(node22)}${delimiter}${process.env.PATH}`,
          npm_config_nodedir: nodeDir,
          // node-gyp compiles SQLite and the addon side by side, unoptimized: this checks that the
          // package builds and runs on Node 22, not SQLite's speed, and -O0 (appended after the
          // package's -O3) costs a third of the compiler's time (docs/performance.md "Test suite").
          JOBS: 'max',
          CFLAGS: '-O0',
          CXXFLAGS: '-O0',
        },
      });
    })(),
    // Node 20: npm resolves and unpacks all the same (its engine and deprecation warnings are checked),
    // but builds nothing. The addon is the one the project's own `npm ci` built with node-gyp for this
    // same Node and better-sqlite3 (checked below): that build runs on every CI run already, and the
    // package's own build is exercised in full on Node 22 above.
    (async () => {
      const prefix = join(temp.dir, 'prefix-20');
      await installGlobally(on20, prefix, { flags: ['--ignore-scripts'], env: await withRegistry() });
      const addon = ['node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'];
      mkdirSync(dirname(installedPackage(prefix, ...addon)), { recursive: true });
      copyFileSync(join(PROJECT_ROOT, ...addon), installedPackage(prefix, ...addon));
    })(),
  ]);
}, 2_200_000);

afterAll(async () => {
  await Promise.all(daemons.map((daemon) => daemon.stop()));
  registry?.close();
  temp?.cleanup();
});

describe('the packed package', () => {
  it('ships the build, the launcher, the docs, the schemas and the shrinkwrap, and no tests or sources', () => {
    for (const path of [
      'package.json',
      'README.md',
      'bin/nodectl',
      'dist/cli/main.js',
      'dist/sdk/api/index.d.ts',
      'npm-shrinkwrap.json',
    ])
      expect(packedFiles).toContain(path);
    expect(packedFiles.some((path) => path.startsWith('docs/'))).toBe(true);
    expect(packedFiles).toContain('schemas/manifest.schema.json');
    const unwanted = packedFiles.filter((path) =>
      /^(?:test|src|bench|scripts|fixtures|golden)\/|\.map$|\.tsbuildinfo$|^package-lock\.json$/.test(path),
    );
    expect(unwanted).toEqual([]);
  });
});

describe('installed globally on Node.js 22', () => {
  it('installs without engine or deprecation warnings, with the shrinkwrap followed', async () => {
    expect((await execa(node22, ['--version'])).stdout).toMatch(/^v22\./);
    expect(existsSync(on22.bin)).toBe(true);
    expect(on22.output).not.toMatch(/EBADENGINE|npm warn deprecated/);
    const cookie = installedPackage(on22.prefix, 'node_modules', '@fastify', 'cookie', 'node_modules', 'cookie');
    expect(JSON.parse(readFileSync(join(cookie, 'package.json'), 'utf8')).version).toBe('1.1.1');
    expect(existsSync(installedPackage(on22.prefix, 'node_modules', 'vitest'))).toBe(false);
  });

  it('nodectl --version prints the package version', async () => {
    const run = await execa(node22, [on22.bin, '--version'], { reject: false });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe(manifest.version);
  });

  it('compiles a fixture with no warning, and gives the committed golden node for another', async () => {
    const out = join(temp.dir, 'blog-node');
    const compile = await execa(node22, [on22.bin, 'compile', join(PROJECT_ROOT, 'fixtures', 'blog'), '--out', out], {
      reject: false,
      env: { NODECTL_LOG_LEVEL: 'warn' },
    });
    expect(compile.exitCode, `${compile.stdout}\n${compile.stderr}`).toBe(0);
    expect(compile.stderr).not.toMatch(/Warning/);
    expect(existsSync(join(out, 'manifest.json'))).toBe(true);
    const golden = await execa(node22, [on22.bin, 'golden', 'check', 'minimal'], { cwd: PROJECT_ROOT, reject: false });
    expect(golden.exitCode, `${golden.stdout}\n${golden.stderr}`).toBe(0);
  });

  it(`import('${manifest.name}'), '/client' and '/api' load from the installed package`, async () => {
    // A script beside the global node_modules resolves the package as any dependent would.
    const probe = join(on22.prefix, 'lib', 'probe.mjs');
    writeFileSync(
      probe,
      `const root = await import('${manifest.name}');
const client = await import('${manifest.name}/client');
const api = await import('${manifest.name}/api');
console.log(JSON.stringify({ root: typeof root.signRequest, same: root.signRequest === client.signRequest, api: typeof api.createApiClient }));
`,
    );
    const run = await execa(node22, [probe], { reject: false });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ root: 'function', same: true, api: 'function' });
  });

  it("gives freed memory back (glibc's malloc_trim through koffi, whose binary the install brought)", async () => {
    expect(await releaseFreedMemoryIn(on22.prefix, node22)).toEqual(RELEASED);
  });

  it('nodectl serve answers /readyz with no warning, and the CI recipe pushes, waits and publishes against it', async () => {
    const daemon = await startTestDaemon({ bin: on22.bin, node: node22 });
    daemons.push(daemon);
    const ready = await fetch(`${daemon.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(daemon.output()).not.toMatch(/Warning/);
    // It started itself again, in the same process, with glibc's mmap threshold fixed (src/cli/malloc-settings.ts).
    expect(environmentOf(daemon)).toContain('MALLOC_MMAP_THRESHOLD_=131072');

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

    // The steps after the install, with ${{ vars.X }} and ${{ secrets.X }} as shell variables, the
    // prefix's bin and then Node 22 first on the PATH.
    const script = recipeSteps()
      .slice(1)
      .map((step) => step.replace(/\$\{\{ (?:vars|secrets)\.([A-Z_]+) \}\}/g, '$$$1'))
      .join('\n');
    const run = await execa('bash', ['-e', '-o', 'pipefail', '-c', script], {
      cwd: work,
      reject: false,
      env: {
        PATH: [join(on22.prefix, 'bin'), dirname(node22), process.env.PATH].join(delimiter),
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

describe("installed globally on the machine's Node.js 20, with the checkout's better-sqlite3 addon", () => {
  it('installs without engine or deprecation warnings, with the shrinkwrap followed', () => {
    expect(process.version).toMatch(/^v20\./);
    expect(existsSync(on20.bin)).toBe(true);
    expect(on20.output).not.toMatch(/EBADENGINE|npm warn deprecated/);
    const cookie = installedPackage(on20.prefix, 'node_modules', '@fastify', 'cookie', 'node_modules', 'cookie');
    expect(JSON.parse(readFileSync(join(cookie, 'package.json'), 'utf8')).version).toBe('1.1.1');
  });

  it("gives freed memory back, koffi's binary installed without install scripts", async () => {
    expect(await releaseFreedMemoryIn(on20.prefix, process.execPath)).toEqual(RELEASED);
  });

  it('the addon is of the better-sqlite3 version the package installed', () => {
    const version = (root: string) =>
      (
        JSON.parse(readFileSync(join(root, 'node_modules', 'better-sqlite3', 'package.json'), 'utf8')) as {
          version: string;
        }
      ).version;
    expect(version(installedPackage(on20.prefix))).toBe(version(PROJECT_ROOT));
  });

  it('nodectl --version, compile and serve to /readyz run', async () => {
    const run = await execa(on20.bin, ['--version'], { reject: false });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe(manifest.version);
    const out = join(temp.dir, 'minimal-node');
    const compile = await execa(on20.bin, ['compile', join(PROJECT_ROOT, 'fixtures', 'minimal'), '--out', out], {
      reject: false,
      env: { NODECTL_LOG_LEVEL: 'warn' },
    });
    expect(compile.exitCode, `${compile.stdout}\n${compile.stderr}`).toBe(0);
    expect(existsSync(join(out, 'manifest.json'))).toBe(true);
    const daemon = await startTestDaemon({ bin: on20.bin });
    daemons.push(daemon);
    expect((await fetch(`${daemon.url}/readyz`)).status).toBe(200);
    // Node 20 has no process.execve: the daemon goes on without the allocator setting.
    expect(environmentOf(daemon)).not.toContain('MALLOC_MMAP_THRESHOLD_=131072');
  });
});
