import { mkdirSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compileToDirectory, createDirectorySink } from '../../src/compiler/directory.js';
import { createMemoryGraphReader, type MemoryGraph } from '../../src/compiler/memory-reader.js';
import { sha256Hex } from '../../src/output/publish/layout.js';
import { makeTempDir } from '../helpers/paths.js';
import { entity, fact, site, source } from './helpers.js';

const BUILD = '2026-02-03T04:05:06Z';
const tmp = makeTempDir('nodectl-directory-');
afterAll(tmp.cleanup);

const mug = entity('Product', 'Blue Mug');
const graph = (): MemoryGraph => ({
  entities: [mug],
  facts: [fact(mug, 'price', 12.5)],
  relationships: [],
  chunks: [],
  qa: [],
  sources: [source(mug.sourceUrl!)],
});

/** This process's open files under `dir` (Linux: /proc/self/fd). */
function openFilesUnder(dir: string): string[] {
  return readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      return target.startsWith(dir) ? [target] : [];
    } catch {
      return [];
    }
  });
}

describe('compileToDirectory', () => {
  it('returns once every file is written whole, fsynced and closed', async () => {
    const dir = join(tmp.dir, 'node');
    const result = await compileToDirectory(createMemoryGraphReader(graph()), site(), dir, { buildTime: BUILD });
    expect(openFilesUnder(tmp.dir)).toEqual([]);
    for (const file of result.files)
      expect('sha256:' + sha256Hex(readFileSync(join(dir, file.path)))).toBe(file.checksum);
  });

  it('leaves the old directory, no temp directory and no open file when the compile fails', async () => {
    const dir = join(tmp.dir, 'kept');
    await compileToDirectory(createMemoryGraphReader(graph()), site(), dir, { buildTime: BUILD });
    const before = readdirSync(dir).map((name) => [name, readFileSync(join(dir, name), 'utf8')]);
    let opened = 0;
    const failing = compileToDirectory(createMemoryGraphReader(graph()), site(), dir, {
      buildTime: '2027-01-01T00:00:00Z',
      wrapSink: (sink) => ({
        open(path) {
          if (++opened === 4) throw new Error('disk full (test)');
          return sink.open(path);
        },
      }),
    });
    await expect(failing).rejects.toThrow('disk full (test)');
    expect(readdirSync(tmp.dir).filter((name) => name.includes('.tmp-'))).toEqual([]);
    expect(readdirSync(dir).map((name) => [name, readFileSync(join(dir, name), 'utf8')])).toEqual(before);
    expect(openFilesUnder(tmp.dir)).toEqual([]);
  });
});

describe('createDirectorySink', () => {
  it('writes each file once (wx) inside its directory, and flushed() resolves once every closed file is fsynced and closed', async () => {
    const dir = join(tmp.dir, 'sink');
    mkdirSync(dir);
    const sink = createDirectorySink(dir);
    for (const name of ['a.txt', 'b.txt']) {
      const file = sink.open(name);
      file.write(Buffer.from(`${name}\n`));
      file.close({ path: name, checksum: '', bytes: 0 });
    }
    await sink.flushed();
    expect(openFilesUnder(dir)).toEqual([]);
    expect(readFileSync(join(dir, 'b.txt'), 'utf8')).toBe('b.txt\n');
    expect(() => sink.open('a.txt')).toThrow(/EEXIST/);
    expect(() => sink.open('../escape.txt')).toThrow('refusing to write outside the node directory');
  });
});
