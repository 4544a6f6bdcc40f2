import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { compileNode } from '../../../src/compiler/compile-node.js';
import { loadFixture } from '../../../src/compiler/fixture.js';
import { listFixtures } from '../../../src/compiler/golden.js';
import type { NodeSink } from '../../../src/compiler/sink.js';
import { SqliteGraphReader } from '../../../src/ingest/graph/reader.js';
import { SIGNAL, ThreadedGraphReader, type ThreadedReaderOptions } from '../../../src/ingest/graph/reader-thread.js';
import type { GraphReader } from '../../../src/ingest/graph/types.js';
import { GRAPH_DB_OPTIONS } from '../../../src/platform/storage/graph-db.js';
import { openDatabase } from '../../../src/platform/storage/sqlite.js';
import { writeFixtureGraph } from '../../helpers/fixture-graph.js';
import { PROJECT_ROOT } from '../../helpers/paths.js';

const FIXTURES = join(PROJECT_ROOT, 'fixtures');
const dirs: string[] = [];
const readers: ThreadedGraphReader[] = [];
afterEach(async () => {
  for (const reader of readers.splice(0)) await reader.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fixture's graph in a file, as the daemon would hold it. */
function fixtureGraph(name: string) {
  const fixture = loadFixture(join(FIXTURES, name));
  const dir = mkdtempSync(join(tmpdir(), 'nodectl-reader-thread-'));
  dirs.push(dir);
  const file = join(dir, 'graph.sqlite');
  writeFixtureGraph(fixture, file);
  return { fixture, file };
}

/** Small messages and little room ahead: every query crosses several messages and waits for the compile. */
async function threaded(
  file: string,
  options: ThreadedReaderOptions = { chunkRows: 3, chunksAhead: 2, aheadBytes: 0 },
) {
  const reader = await ThreadedGraphReader.open(file, options);
  readers.push(reader);
  return reader;
}

/** Messages the reading thread has posted, once it has posted `atLeast` and 300 ms more have passed. */
async function postedAfter(reader: ThreadedGraphReader, atLeast: number): Promise<number> {
  const signal = Reflect.get(reader, 'signal') as Int32Array;
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  for (const started = Date.now(); Atomics.load(signal, SIGNAL.posted) < atLeast && Date.now() - started < 10_000;)
    await sleep(20);
  await sleep(300);
  return Atomics.load(signal, SIGNAL.posted);
}

function compiledBytes(reader: GraphReader, fixture: ReturnType<typeof loadFixture>): Record<string, string> {
  const files: Record<string, string> = {};
  const sink: NodeSink = {
    open(path) {
      const chunks: Uint8Array[] = [];
      return {
        write: (chunk) => void chunks.push(chunk),
        close: () => void (files[path] = Buffer.concat(chunks).toString('utf8')),
      };
    },
  };
  compileNode(reader, fixture.site, { ...fixture.presentation, buildTime: fixture.buildTime }, sink);
  return files;
}

describe('ThreadedGraphReader (runs the build: npm run build)', () => {
  it('compiles every fixture to the bytes the in-thread reader gives', async () => {
    const names = listFixtures(FIXTURES);
    expect(names.length).toBeGreaterThanOrEqual(5);
    for (const name of names) {
      const { fixture, file } = fixtureGraph(name);
      const db = openDatabase(file, { ...GRAPH_DB_OPTIONS, readonly: true });
      try {
        const expected = compiledBytes(new SqliteGraphReader(db), fixture);
        expect(compiledBytes(await threaded(file), fixture), name).toEqual(expected);
      } finally {
        db.close();
      }
    }
  });

  it('reads the graph as it was when it opened, whatever is written since', async () => {
    const { file } = fixtureGraph('shop');
    const reader = await threaded(file);
    const writer = openDatabase(file, GRAPH_DB_OPTIONS);
    const facts = writer.prepare('SELECT count(*) FROM fact_candidates').pluck().get() as number;
    writer.exec('DELETE FROM fact_candidates; DELETE FROM sources');
    writer.close();
    expect(reader.languages()).toContain('en');
    expect([...reader.sources()].length).toBeGreaterThan(0);
    expect([...reader.facts('en')].length + [...reader.facts('de')].length).toBe(facts);
  });

  it('stops a query left early, and answers the next one whole', async () => {
    const { file } = fixtureGraph('shop');
    const reader = await threaded(file);
    const all = [...reader.facts('en')];
    expect(all.length).toBeGreaterThan(10);
    for (const fact of reader.facts('en')) if (fact.id === all[4]!.id) break;
    expect([...reader.facts('en')]).toEqual(all);
  });

  it('stops a planned query left early, and only that one', async () => {
    const { file } = fixtureGraph('shop');
    const reader = await threaded(file);
    const facts = [...reader.facts('en')];
    const sources = [...reader.sources()];
    expect(sources.length).toBeGreaterThan(3); // more than one message: each asks for room, where a query is stopped
    reader.plan([{ kind: 'facts', language: 'en' }, { kind: 'sources' }, { kind: 'facts', language: 'en' }]);
    for (const fact of reader.facts('en')) if (fact.id === facts[2]!.id) break;
    expect([...reader.sources()]).toEqual(sources);
    expect([...reader.facts('en')]).toEqual(facts);
  });

  it('reads a plan ahead, and refuses a read the plan did not announce', async () => {
    const { file } = fixtureGraph('shop');
    const reader = await threaded(file);
    const sources = [...reader.sources()];
    const entities = [...reader.entities('en')];
    reader.plan([{ kind: 'sources' }, { kind: 'entities', language: 'en' }]);
    expect([...reader.sources()]).toEqual(sources);
    expect(() => [...reader.facts('en')]).toThrow('where its plan said entities(-1, [], en)');
    expect([...reader.entities('en')]).toEqual(entities);
  });

  it('reads ahead by messages, or further by bytes while its messages are small', async () => {
    const { file } = fixtureGraph('shop');
    const sources = [...(await threaded(file)).sources()];
    expect(sources.length).toBeGreaterThan(4);
    const byMessages = await threaded(file, { chunkRows: 1, chunksAhead: 2, aheadBytes: 0 });
    byMessages.plan([{ kind: 'sources' }]);
    expect(await postedAfter(byMessages, 2)).toBe(2);
    const byBytes = await threaded(file, { chunkRows: 1, chunksAhead: 2, aheadBytes: 1 << 20 });
    byBytes.plan([{ kind: 'sources' }]);
    // Every source in a message of its own, then the empty last one.
    expect(await postedAfter(byBytes, sources.length + 1)).toBe(sources.length + 1);
    expect([...byBytes.sources()]).toEqual(sources);
  });

  it("fails a query SQLite cannot run with SQLite's reason, then goes on", async () => {
    const { file } = fixtureGraph('shop');
    const writer = openDatabase(file, GRAPH_DB_OPTIONS);
    writer.exec(`UPDATE qa SET fact_ids = 'not json' WHERE rowid = (SELECT min(rowid) FROM qa)`);
    writer.close();
    const reader = await threaded(file);
    expect(() => [...reader.qa('en')]).toThrow(/reading the graph failed: .*malformed JSON/);
    expect([...reader.sources()].length).toBeGreaterThan(0);
  });
});
