import { execa } from 'execa';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/main.js';
import { describeCommandTree } from '../../src/cli/completion.js';
import { runNodectl } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/paths.js';

/**
 * `nodectl completion bash|zsh|fish`: the bash script is sourced into a real bash and asked to
 * complete; the zsh and fish scripts are checked by their shells' syntax check (both installed by
 * scripts/ensure-test-tools.sh, which `npm test` runs first), and for naming every command path.
 */
const temp = makeTempDir('nodectl-completion-');
const scripts: Record<string, string> = {};
const paths = describeCommandTree(buildProgram())
  .map((node) => node.path)
  .filter(Boolean);

beforeAll(async () => {
  for (const shell of ['bash', 'zsh', 'fish']) {
    const run = await runNodectl(['completion', shell]);
    expect(run.exitCode).toBe(0);
    scripts[shell] = run.stdout;
    writeFileSync(join(temp.dir, `nodectl.${shell}`), run.stdout);
  }
}, 60_000);
afterAll(() => temp.cleanup());

/** What bash offers for the words typed so far (the last one is being completed). */
async function complete(...words: string[]): Promise<string[]> {
  const script = [
    `source ${JSON.stringify(join(temp.dir, 'nodectl.bash'))}`,
    `COMP_WORDS=(nodectl ${words.map((w) => `'${w}'`).join(' ')})`,
    `COMP_CWORD=${words.length}`,
    '_nodectl',
    'printf "%s\\n" "${COMPREPLY[@]}"',
  ].join('\n');
  const result = await execa('bash', ['--norc', '--noprofile', '-c', script]);
  return result.stdout.split('\n').filter(Boolean);
}

describe('nodectl completion', () => {
  it('bash completes commands, subcommands and flags at any depth, after global flags', async () => {
    expect(await complete('ba')).toEqual(['backup']);
    expect(await complete('')).toEqual(expect.arrayContaining(['admin', 'completion', 'init', 'push', 'restore']));
    expect(await complete('--data-dir', 'admin', 'admin', 'api-key', 'c')).toEqual(['create']);
    expect(await complete('admin', 'api-key', 'create', '--')).toEqual(['--org', '--name', '--role', '--help']);
    expect(await complete('push', '--w')).toEqual(['--website', '--watch']);
    // After a flag that takes a value, bash falls back to file names.
    expect(await complete('push', '--url', '')).toEqual([]);
  });

  it('every script names every command path', () => {
    expect(paths).toEqual(expect.arrayContaining(['admin api-key create', 'jobs wait', 'backup', 'completion']));
    for (const path of paths) {
      const last = path.split(' ').at(-1)!;
      expect(scripts.bash).toContain(`'${path}')`);
      expect(scripts.zsh).toContain(`'${path}')`);
      expect(scripts.fish).toContain(`-a '${last}'`);
    }
    expect(scripts.zsh).toContain('bashcompinit');
  });

  it('the zsh script parses', async () => {
    await execa('zsh', ['-n', join(temp.dir, 'nodectl.zsh')]);
  });

  it('the fish script parses', async () => {
    await execa('fish', ['--no-execute', join(temp.dir, 'nodectl.fish')]);
  });

  it('refuses another shell and says how to install in --help', async () => {
    const run = await runNodectl(['completion', 'tcsh']);
    expect(run).toMatchObject({ exitCode: 2, stderr: expect.stringContaining('must be bash, zsh or fish') });
    const help = await runNodectl(['completion', '--help']);
    expect(help.stdout).toContain('~/.config/fish/completions/nodectl.fish');
  });
});
