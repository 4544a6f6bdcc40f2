import { describe, expect, it } from 'vitest';
import { nodectlCommand } from '../../src/cli/invocation.js';

/** A file system of real paths: a link maps to its target, a file to itself. */
const fs = (files: Record<string, string>) => (file: string) => files[file];

describe('nodectlCommand (the serve banner suggested a `nodectl` that was not on PATH in a clone)', () => {
  it('in a clone with no nodectl on PATH: node bin/nodectl, relative to the working folder', () => {
    expect(
      nodectlCommand({
        script: '/home/me/nodectl/bin/nodectl',
        cwd: '/home/me/nodectl',
        path: '/usr/bin:/bin',
        realpath: fs({ '/home/me/nodectl/bin/nodectl': '/home/me/nodectl/bin/nodectl' }),
      }),
    ).toBe('node bin/nodectl');
  });

  it('from another folder: node and the absolute path', () => {
    expect(
      nodectlCommand({
        script: '/home/me/nodectl/bin/nodectl',
        cwd: '/tmp',
        path: '/usr/bin',
        realpath: fs({ '/home/me/nodectl/bin/nodectl': '/home/me/nodectl/bin/nodectl' }),
      }),
    ).toBe('node /home/me/nodectl/bin/nodectl');
  });

  it('an installed package: the nodectl on PATH is this binary, so plain nodectl', () => {
    const real = '/usr/lib/node_modules/@nodectl/cli/bin/nodectl';
    expect(
      nodectlCommand({
        script: '/usr/bin/nodectl',
        cwd: '/srv',
        path: '/usr/local/bin:/usr/bin',
        realpath: fs({ '/usr/bin/nodectl': real }),
      }),
    ).toBe('nodectl');
  });

  it('another nodectl on PATH (an older install) is not this one: the path is printed', () => {
    expect(
      nodectlCommand({
        script: '/home/me/nodectl/bin/nodectl',
        cwd: '/home/me/nodectl',
        path: '/usr/bin',
        realpath: fs({
          '/home/me/nodectl/bin/nodectl': '/home/me/nodectl/bin/nodectl',
          '/usr/bin/nodectl': '/usr/lib/node_modules/@nodectl/cli/bin/nodectl',
        }),
      }),
    ).toBe('node bin/nodectl');
  });
});
