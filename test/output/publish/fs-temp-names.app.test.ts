import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeTempDir } from '../../helpers/paths.js';

/**
 * The fs target's temporary files (src/output/publish/targets/fs.ts): every thread of a process
 * loads the module on its own, so two threads (the daemon's publish workers, say) write through
 * module instances that share the pid. Two instances writing into one folder at once must never
 * pick the same temporary name: one would truncate the other's file, or rename it under its key.
 * Here the two instances are two imports of the module in this thread.
 */
const temp = makeTempDir('nodectl-fs-temp-');
afterEach(() => vi.resetModules());

async function freshModule() {
  vi.resetModules();
  return import('../../../src/output/publish/targets/fs.js');
}

describe('fs target temporary names', () => {
  it('two module instances putting into one folder at once each keep their own bytes', async () => {
    const first = (await freshModule()).createFsTarget({ root: temp.dir });
    const second = (await freshModule()).createFsTarget({ root: temp.dir });
    const meta = { contentType: 'text/plain', cacheControl: 'no-store' };
    // Both start their put before either renames: each waits for its fsyncs between writing and renaming.
    await Promise.all([
      first.put('shared/a.txt', 'first instance, longer body', meta),
      second.put('shared/b.txt', 'second', meta),
    ]);
    expect(readFileSync(join(temp.dir, 'shared', 'a.txt'), 'utf8')).toBe('first instance, longer body');
    expect(readFileSync(join(temp.dir, 'shared', 'b.txt'), 'utf8')).toBe('second');
    temp.cleanup();
  });
});
