import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeSink } from '../../src/compiler/sink.js';
import { compileWebsite } from '../../src/compiler/website.js';
import { createDeleteHarness, WEBSITE_ID, type DeleteHarness } from '../output/publish/deletes-support.js';
import { pageItem } from '../ingest/endpoints/support.js';
import { makeTempDir } from '../helpers/paths.js';

/**
 * A website's compile (what a publish runs) reads its graph in one read transaction: ingestion
 * keeps committing while a large website compiles, and a node must be one state of the graph,
 * not sources of one state and Q&A of a later one.
 */
let h: DeleteHarness;
const out = makeTempDir('nodectl-compile-snapshot-');
const BUILD = { buildTime: '2026-03-02T10:00:00Z' };

beforeAll(async () => {
  h = await createDeleteHarness();
  await h.ingest([pageItem('p:1'), pageItem('p:2'), pageItem('p:3')]);
  await h.runJobs();
}, 60_000);
afterAll(async () => {
  await h?.close();
  out.cleanup();
});

const filesOf = (dir: string) =>
  Object.fromEntries(
    readdirSync(dir)
      .sort()
      .map((name) => [name, readFileSync(join(dir, name), 'utf8')]),
  );

/** A sink that runs `write` (on another connection) when the compile opens its first file, after it started reading. */
function writingOnFirstOpen(write: () => void) {
  let done = false;
  return (sink: NodeSink): NodeSink => ({
    open(path) {
      if (!done) ((done = true), write());
      return sink.open(path);
    },
  });
}

describe('compileWebsite reads one state of the graph', () => {
  it('does not see a commit made by another connection while it compiles; the next compile does', async () => {
    const before = join(out.dir, 'before');
    await compileWebsite(h.dataDir, WEBSITE_ID, before, BUILD);
    const graph = h.services.graphs.get(WEBSITE_ID);
    const meanwhile = join(out.dir, 'meanwhile');
    await compileWebsite(h.dataDir, WEBSITE_ID, meanwhile, {
      ...BUILD,
      wrapSink: writingOnFirstOpen(() =>
        graph
          .transaction(() => {
            graph.prepare(`UPDATE sources SET title = 'Retitled while compiling'`).run();
            graph.prepare('DELETE FROM qa').run();
          })
          .immediate(),
      ),
    });
    expect(filesOf(meanwhile)).toEqual(filesOf(before));

    const after = join(out.dir, 'after');
    await compileWebsite(h.dataDir, WEBSITE_ID, after, BUILD);
    expect(readFileSync(join(after, 'sources.jsonl'), 'utf8')).toContain('Retitled while compiling');
    expect(readFileSync(join(after, 'qa.en.jsonl'), 'utf8')).toBe('');
  });

  it('reading in a thread of its own (as a large graph is read), it compiles the same bytes and sees no later commit either', async () => {
    const inThread = join(out.dir, 'in-thread');
    await compileWebsite(h.dataDir, WEBSITE_ID, inThread, { ...BUILD, readingThread: false });
    const graph = h.services.graphs.get(WEBSITE_ID);
    const threaded = join(out.dir, 'threaded');
    await compileWebsite(h.dataDir, WEBSITE_ID, threaded, {
      ...BUILD,
      readingThread: true,
      wrapSink: writingOnFirstOpen(() => graph.prepare(`UPDATE sources SET title = 'Retitled again'`).run()),
    });
    expect(filesOf(threaded)).toEqual(filesOf(inThread));
  });
});
