import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { userInfo } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { makeTempDir, PROJECT_ROOT } from '../helpers/paths.js';

/**
 * Node.js 22 LTS, the documented runtime, while the machines run Node 20: the npm registry's `node@22`
 * package brings a Node 22 binary and its headers; with it, npm installs the packed package (building
 * better-sqlite3 for Node 22) and the walk-through's core runs: serve to /readyz, compile a fixture.
 * (`npm run build` first: the package is this checkout's build.)
 */
const manifest = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
};

// npm runs as the machine's user would (its own config and cache), not in the test's sandboxed HOME.
const npmEnv = { HOME: userInfo().homedir };

let temp: { dir: string; cleanup: () => void };
let node22: string;
let installedBin: string;
let installOutput: string;
let daemon: TestDaemon | undefined;

beforeAll(async () => {
  temp = makeTempDir('nodectl-node22-');
  const runtime = join(temp.dir, 'runtime');
  await execa(
    'npm',
    ['install', '--prefix', runtime, '--no-save', '--prefer-offline', '--no-audit', '--no-fund', 'node@22'],
    {
      env: npmEnv,
      timeout: 600_000,
    },
  );
  node22 = join(runtime, 'node_modules', 'node', 'bin', 'node');
  // The platform package node@22 installs holds the headers node-gyp builds native modules against.
  const nodeDir = join(runtime, 'node_modules', 'node', 'node_modules', `node-${process.platform}-${process.arch}`);

  // --ignore-scripts: prepack's clean build would empty the dist/ that other test files run from.
  const pack = await execa('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', temp.dir], {
    cwd: PROJECT_ROOT,
    env: npmEnv,
  });
  const [packed] = JSON.parse(pack.stdout) as [{ filename: string }];

  // The machine's npm run by Node 22, with Node 22 first on the PATH for the install scripts.
  const npmCli = realpathSync((await execa('sh', ['-c', 'command -v npm'])).stdout.trim());
  const prefix = join(temp.dir, 'prefix');
  const install = await execa(
    node22,
    [npmCli, 'install', '--global', '--prefer-offline', '--no-audit', '--no-fund', join(temp.dir, packed.filename)],
    {
      env: {
        ...npmEnv,
        PATH: `${dirname(node22)}${delimiter}${process.env.PATH}`,
        npm_config_prefix: prefix,
        npm_config_nodedir: nodeDir,
      },
      all: true,
      timeout: 1_500_000,
    },
  );
  installOutput = install.all ?? '';
  installedBin = join(prefix, 'lib', 'node_modules', ...manifest.name.split('/'), 'bin', 'nodectl');
}, 2_200_000);

afterAll(async () => {
  await daemon?.stop();
  temp?.cleanup();
});

describe('on Node.js 22', () => {
  it('the package installs without engine or deprecation warnings', async () => {
    expect((await execa(node22, ['--version'])).stdout).toMatch(/^v22\./);
    expect(existsSync(installedBin)).toBe(true);
    expect(installOutput).not.toMatch(/EBADENGINE|npm warn deprecated/);
  });

  it('nodectl --version and compile run', async () => {
    const version = await execa(node22, [installedBin, '--version'], { reject: false });
    expect(version.exitCode, version.stderr).toBe(0);
    expect(version.stdout.trim()).toBe(manifest.version);
    const out = join(temp.dir, 'blog-node');
    const compile = await execa(
      node22,
      [installedBin, 'compile', join(PROJECT_ROOT, 'fixtures', 'blog'), '--out', out],
      {
        reject: false,
        env: { NODECTL_LOG_LEVEL: 'warn' },
      },
    );
    expect(compile.exitCode, `${compile.stdout}\n${compile.stderr}`).toBe(0);
    expect(compile.stderr).not.toMatch(/Warning/);
    expect(existsSync(join(out, 'manifest.json'))).toBe(true);
  });

  it('nodectl serve answers /readyz, with no warning in its output', async () => {
    daemon = await startTestDaemon({ bin: installedBin, node: node22 });
    const ready = await fetch(`${daemon.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(daemon.output()).not.toMatch(/Warning/);
  });
});
