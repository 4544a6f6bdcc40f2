import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { compileStatePath } from '../../src/compiler/compile-state-file.js';
import { readPreviousNode } from '../../src/compiler/previous.js';
import type { NodeSink } from '../../src/compiler/sink.js';
import { compileWebsite } from '../../src/compiler/website.js';
import { dataDirLayout } from '../../src/platform/storage/index.js';
import { createDeleteHarness, WEBSITE_ID, type DeleteHarness } from '../output/publish/deletes-support.js';
import { pageItem } from '../ingest/endpoints/support.js';
import { makeTempDir } from '../helpers/paths.js';

/**
 * A website's compile against the live version keeps a CompileState beside the graph file and
 * uses the one of the version it compiles against: the chunks written before that compile are
 * copied from it (src/compiler/compile-since.ts). Whether the graph is read in this thread or in
 * a thread of its own, the bytes are those of a compile that reads every chunk.
 */
const harnesses: DeleteHarness[] = [];
const out = makeTempDir('nodectl-compile-since-');
afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.close();
});

const filesOf = (dir: string) =>
  Object.fromEntries(
    readdirSync(dir)
      .sort()
      .map((name) => [name, readFileSync(join(dir, name), 'utf8')]),
  );

/** Counts the chunk lines copied from the live version (written without their record). */
function countCopiedChunks(counter: { copied: number }) {
  return (sink: NodeSink): NodeSink => ({
    open(path) {
      const file = sink.open(path);
      if (!path.startsWith('chunks.')) return file;
      counter.copied = 0;
      return {
        write: (chunk) => file.write(chunk),
        close: (written) => file.close(written),
        line(line, record, previous, id) {
          if (record === null) counter.copied++;
          file.line?.(line, record, previous, id);
        },
      };
    },
  });
}

describe('compileWebsite against the live version', () => {
  it.each([false, true])(
    'copies the chunks unchanged since its compile, to the bytes of a full compile (reading thread: %s)',
    async (readingThread) => {
      const h = await createDeleteHarness();
      harnesses.push(h);
      await h.ingest(['p:1', 'p:2', 'p:3', 'p:4'].map((id) => pageItem(id, `The ${id} page tells of espresso.`)));
      await h.runJobs();
      const stateFile = compileStatePath(dataDirLayout(h.dataDir), WEBSITE_ID);
      const dir = (name: string) => join(out.dir, `${name}-${String(readingThread)}`);

      const v1 = await compileWebsite(h.dataDir, WEBSITE_ID, dir('v1'), {
        buildTime: '2026-03-02T10:00:00Z',
        readingThread,
      });
      expect(v1.counts.chunks).toBeGreaterThan(1);
      expect(JSON.parse(readFileSync(stateFile, 'utf8')).states[0].nodeVersion).toBe(v1.nodeVersion);

      await h.ingest([pageItem('p:2', 'The p:2 page now tells of filter coffee.')]);
      await h.runJobs();
      const counter = { copied: 0 };
      const v2 = await compileWebsite(h.dataDir, WEBSITE_ID, dir('v2'), {
        buildTime: '2026-03-02T11:00:00Z',
        previous: (await readPreviousNode(dir('v1'), { validated: true }))!,
        readingThread,
        wrapSink: countCopiedChunks(counter),
      });
      expect(counter.copied).toBeGreaterThan(0);
      expect(counter.copied).toBeLessThan(v2.counts.chunks);
      // The reference: the previous version hashed up front, which no state applies to.
      const full = await compileWebsite(h.dataDir, WEBSITE_ID, dir('full'), {
        buildTime: '2026-03-02T11:00:00Z',
        previous: (await readPreviousNode(dir('v1'), { hashRecords: true }))!,
        readingThread,
      });
      expect(full.nodeVersion).toBe(v2.nodeVersion);
      expect(filesOf(dir('v2'))).toEqual(filesOf(dir('full')));

      // A state file this code cannot read is left aside: every chunk is read, to the same bytes.
      writeFileSync(stateFile, '{"states": "not a list"}');
      const again = await compileWebsite(h.dataDir, WEBSITE_ID, dir('again'), {
        buildTime: '2026-03-02T11:00:00Z',
        previous: (await readPreviousNode(dir('v1'), { validated: true }))!,
        readingThread,
        wrapSink: countCopiedChunks(counter),
      });
      expect(counter.copied).toBe(0);
      expect(filesOf(dir('again'))).toEqual(filesOf(dir('full')));
      expect(JSON.parse(readFileSync(stateFile, 'utf8')).states[0].nodeVersion).toBe(again.nodeVersion);

      // Deleting the website's graph files takes the state with them.
      h.services.graphs.release(WEBSITE_ID);
      const { deleteGraphFiles } = await import('../../src/control/organizations/index.js');
      deleteGraphFiles(h.services, WEBSITE_ID);
      expect(existsSync(stateFile)).toBe(false);
    },
  );
});
