import { realpathSync, symlinkSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestDaemon } from '../helpers/daemon.js';
import { makeTempDir, NODECTL_BIN } from '../helpers/paths.js';

// Issue 37 item 4: the banner suggested `nodectl ...`, which is not on PATH in a clone.
describe('the serve banner prints commands that work as printed', () => {
  const links = makeTempDir('nodectl-banner-path-');
  afterAll(() => links.cleanup());
  const adminLine = (output: string) => output.split('\n').find((line) => line.includes(' admin user create '));

  it('no nodectl of its own on PATH: `node <path to bin/nodectl>`', async () => {
    const daemon = await startTestDaemon();
    try {
      expect(adminLine(daemon.output())).toMatch(
        new RegExp(`^ {2}node ${realpathSync(NODECTL_BIN).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} --data-dir `),
      );
    } finally {
      await daemon.stop();
    }
  });

  it('the nodectl on PATH is this binary (an installed package): plain `nodectl`', async () => {
    symlinkSync(NODECTL_BIN, join(links.dir, 'nodectl'));
    const daemon = await startTestDaemon({
      bin: join(links.dir, 'nodectl'),
      env: { PATH: `${links.dir}${delimiter}${process.env.PATH ?? ''}` },
    });
    try {
      expect(adminLine(daemon.output())).toMatch(/^ {2}nodectl --data-dir /);
    } finally {
      await daemon.stop();
    }
  });
});
