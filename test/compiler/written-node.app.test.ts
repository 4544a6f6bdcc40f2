import { createHash } from 'node:crypto';
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { compileToDirectory, loadFixture, type NodeSink } from '../../src/compiler/index.js';
import { DISCARDING_SINK } from '../../src/compiler/sink.js';
import { compareInReadOrder, DerivedFacts } from '../../src/compiler/validate/scan-file.js';
import { validateNode } from '../../src/compiler/validate/validate-node.js';
import { WrittenNodeCheck } from '../../src/compiler/validate/written-node.js';
import { ParallelWrittenNodeCheck, writtenCheckWorkerUrl } from '../../src/compiler/validate/written-node-thread.js';
import { buildGraphFromItems, type BuiltGraph } from '../../src/ingest/graph/build-from-items.js';
import { makeTempDir, PROJECT_ROOT } from '../helpers/paths.js';
import { alteredSink } from './helpers.js';

const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

/** Each fixture's graph, built once for the file: the compiles only read it. */
const graphs = new Map<string, { fixture: ReturnType<typeof loadFixture>; graph: BuiltGraph }>();
afterAll(() => graphs.forEach(({ graph }) => graph.close()));
function fixtureGraph(name: string) {
  let built = graphs.get(name);
  if (!built) {
    const fixture = loadFixture(join(PROJECT_ROOT, 'fixtures', name));
    const graph = buildGraphFromItems(fixture.items, fixture.site, {
      receivedAt: fixture.buildTime,
      editorial: fixture.editorial,
    });
    graphs.set(name, (built = { fixture, graph }));
  }
  return built;
}

interface Check {
  sink(inner: NodeSink): NodeSink;
  report(): ReturnType<WrittenNodeCheck['report']>;
}

/**
 * The ways a publish can check its own compile: in the compiling thread, knowing the website or
 * not (its facts then told apart by their derived ids, DerivedFacts), and in a worker thread
 * from the first byte (the build's worker: npm run build) with a queue of two chunks, so the
 * compile waits for the worker again and again.
 */
const CHECKS: Array<[string, (out: string, websiteId: string) => Check]> = [
  ['WrittenNodeCheck', (out) => new WrittenNodeCheck(out, { recordsPassedSchemas: true })],
  [
    'WrittenNodeCheck knowing the website',
    (out, websiteId) => new WrittenNodeCheck(out, { recordsPassedSchemas: true, websiteId }),
  ],
  [
    'ParallelWrittenNodeCheck in a worker, knowing the website',
    (out, websiteId) => {
      const check = new ParallelWrittenNodeCheck(out, {
        recordsPassedSchemas: true,
        handoverBytes: 0,
        maxQueuedChunks: 2,
        workerUrl: writtenCheckWorkerUrl(),
        websiteId,
      });
      cleanups.push(() => check.close());
      return check;
    },
  ],
];

/**
 * Compiles a fixture into a new folder through a check (with `change` applied to the output
 * ahead of it), and returns the check's report with the folder it wrote.
 */
async function compileChecked(
  makeCheck: (out: string, websiteId: string) => Check,
  name: string,
  change: Record<string, (text: string) => string | Buffer> = {},
) {
  const { dir, cleanup } = makeTempDir('nodectl-written-');
  cleanups.push(cleanup);
  const out = join(dir, 'node');
  const { fixture, graph } = fixtureGraph(name);
  const written = makeCheck(out, fixture.site.websiteId);
  await compileToDirectory(graph.reader, fixture.site, out, {
    ...fixture.presentation,
    buildTime: fixture.buildTime,
    wrapSink: (sink: NodeSink) => alteredSink(written.sink(sink), change),
  });
  return { out, report: await written.report() };
}

/** The report of the check as written, and validateNode's on the folder it was written to, with the same rule for line schemas. */
async function bothReports(
  makeCheck: (out: string, websiteId: string) => Check,
  name: string,
  change: Record<string, (text: string) => string | Buffer> = {},
) {
  const { out, report } = await compileChecked(makeCheck, name, change);
  return { written: report, folder: await validateNode(out, { recordsPassedSchemas: true }) };
}

/** A fact line with another id, one no key derives. */
const otherFactId = (line: string) => line.replace(/"id":"fact_[0-9a-f]+"/, '"id":"fact_000000000000000000000001"');

const replaceFirstLine = (change: (line: string) => string) => (text: string) => {
  const [first, ...rest] = text.split('\n');
  return [change(first!), ...rest].join('\n');
};

describe.each(CHECKS)("%s: validateNode's checks on the bytes the compiler writes", (_, makeCheck) => {
  it.each(['blog', 'docs', 'local-business', 'minimal', 'shop'])(
    'passes the %s fixture with the report validateNode gives its folder, and writes the golden bytes',
    async (name) => {
      const { out, report } = await compileChecked(makeCheck, name);
      expect(report.errors).toEqual([]);
      expect(report).toEqual(await validateNode(out, { recordsPassedSchemas: true }));
      const golden = join(PROJECT_ROOT, 'golden', name);
      expect(readdirSync(out).sort()).toEqual(readdirSync(golden).sort());
      for (const file of readdirSync(golden))
        expect(readFileSync(join(out, file)).equals(readFileSync(join(golden, file))), file).toBe(true);
    },
  );

  const defects: Array<[string, Record<string, (text: string) => string | Buffer>, string[]]> = [
    ['a broken record line', { 'facts.en.jsonl': replaceFirstLine((line) => line.slice(0, -5)) }, ['json.invalid']],
    [
      'a uuid where a stable id is required',
      {
        'entities.en.jsonl': (t) => t.replace(/"id":"entity_[0-9a-f]+"/, '"id":"3f2504e0-4f89-11d3-9a0c-0305e82c3301"'),
      },
      ['node.uuid_leak'],
    ],
    [
      'an internal field',
      { 'qa.de.jsonl': (t) => t.replace('"schema_version":"1.0.0"', '"schema_version":"1.0.0","stale":true') },
      ['export.internal_field'],
    ],
    [
      'a reference to no record',
      {
        'relationships.en.jsonl': (t) =>
          t.replace(/"to_entity_id":"entity_[0-9a-f]+"/, '"to_entity_id":"entity_000000000000000000000000"'),
      },
      ['ref.dangling'],
    ],
    // facts are written before the entities they name, and checked after them
    [
      'a second fact per (subject, predicate) and a duplicate id',
      { 'facts.de.jsonl': (t) => t + t.split('\n')[0]! + '\n' },
      ['jsonl.duplicate_id', 'export.superseded_fact'],
    ],
    [
      'a second fact of a key under an id not derived from it',
      { 'facts.de.jsonl': (t) => t + otherFactId(t.split('\n')[0]!) + '\n' },
      ['export.superseded_fact'],
    ],
    [
      'a fact of a key under an id not derived from it, before the fact whose id is',
      { 'facts.de.jsonl': (t) => otherFactId(t.split('\n')[0]!) + '\n' + t },
      ['export.superseded_fact'],
    ],
    [
      'a citation of no record',
      {
        'citations.jsonl': (t) =>
          t.replace(/"record_id":"fact_[0-9a-f]+"/, '"record_id":"fact_000000000000000000000000"'),
      },
      ['ref.dangling'],
    ],
    [
      'a citation of no relationship',
      {
        'citations.jsonl': (t) =>
          t.replace(/"record_id":"rel_[0-9a-f]+"/, '"record_id":"rel_000000000000000000000000"'),
      },
      ['ref.dangling'],
    ],
    [
      'a reference to no record, then an internal field two lines on',
      {
        'facts.en.jsonl': (t) => {
          const lines = t.split('\n');
          lines[0] = lines[0]!.replace(
            /"subject_entity_id":"entity_[0-9a-f]+"/,
            '"subject_entity_id":"entity_000000000000000000000000"',
          );
          lines[2] = lines[2]!.replace('"schema_version":"1.0.0"', '"schema_version":"1.0.0","pinned":true');
          return lines.join('\n');
        },
      },
      ['ref.dangling', 'export.internal_field'],
    ],
    [
      'a carriage return and no final newline',
      { 'sources.jsonl': (t) => t.replace('\n', '\r\n').slice(0, -1) },
      ['file.crlf', 'jsonl.final_newline'],
    ],
    [
      'bytes that are not UTF-8',
      {
        'chunks.en.jsonl': (t) =>
          Buffer.concat([Buffer.from(t.slice(0, 10)), Buffer.from([0xff]), Buffer.from(t.slice(10))]),
      },
      ['file.encoding'],
    ],
    [
      "a manifest whose checksum is not the bytes'",
      { 'manifest.json': (t) => t.replace(/"checksum": "sha256:[0-9a-f]{6}/, '"checksum": "sha256:000000') },
      ['file.checksum_mismatch'],
    ],
    ['llms.txt without its title', { 'llms.txt': () => 'no title\n' }, ['llms.no_title']],
  ];

  it.each(defects)(
    'finds %s as validateNode finds it in the folder (same issues, same order)',
    async (_, change, codes) => {
      const { written, folder } = await bothReports(makeCheck, 'shop', change);
      expect(written.ok).toBe(false);
      expect(written).toEqual(folder);
      expect(written.errors.map((e) => e.code)).toEqual(expect.arrayContaining(codes));
    },
  );

  it.each(['docs', 'shop'])(
    'finds every fact id of the %s fixture derived from its key, so a check knowing the website keeps no key',
    async (name) => {
      const { out } = await compileChecked(makeCheck, name);
      const derived = new DerivedFacts(fixtureGraph(name).fixture.site.websiteId);
      const facts = readdirSync(out)
        .filter((file) => file.startsWith('facts.'))
        .flatMap((file) => readFileSync(join(out, file), 'utf8').split('\n').filter(Boolean))
        .map((line) => JSON.parse(line) as Record<string, string>);
      expect(facts.length).toBeGreaterThan(10);
      for (const fact of facts)
        expect(derived.idOf(fact.subject_entity_id!, fact.predicate!, fact.language!)).toBe(fact.id);
    },
  );

  it('keeps 50 issues of a code and counts the others, as validateNode does', async () => {
    const { written, folder } = await bothReports(makeCheck, 'shop', {
      'facts.en.jsonl': (t) => t + '\n'.repeat(40),
      'facts.de.jsonl': (t) => t + '\n'.repeat(30),
      'entities.en.jsonl': (t) => t + '\n'.repeat(70),
    });
    expect(written).toEqual(folder);
    expect(written.counts['jsonl.blank_line']).toBe(140);
    expect(written.errors.filter((e) => e.code === 'jsonl.blank_line').map((e) => e.file)).toEqual([
      ...Array(50).fill('entities.en.jsonl'),
    ]);
    expect(written.truncated).toBe(true);
  });
});

describe('ParallelWrittenNodeCheck: where the check runs', () => {
  const parallel = (options: ConstructorParameters<typeof ParallelWrittenNodeCheck>[1]) => (out: string) => {
    const check = new ParallelWrittenNodeCheck(out, {
      recordsPassedSchemas: true,
      workerUrl: writtenCheckWorkerUrl(),
      ...options,
    });
    cleanups.push(() => check.close());
    return check;
  };

  it("checks a node smaller than handoverBytes in the calling thread, and hands a larger one over mid-compile, with validateNode's report both ways", async () => {
    let small: ParallelWrittenNodeCheck | undefined;
    const stayed = await bothReports(
      (out) => (small = parallel({ handoverBytes: 64 * 1024 * 1024 })(out) as ParallelWrittenNodeCheck),
      'shop',
    );
    expect(small!.inWorker).toBe(false);
    expect(stayed.written).toEqual(stayed.folder);

    let large: ParallelWrittenNodeCheck | undefined;
    const change = { 'facts.en.jsonl': replaceFirstLine((line) => line.slice(0, -5)) };
    const handed = await bothReports(
      (out) => (large = parallel({ handoverBytes: 4096, maxQueuedChunks: 1 })(out) as ParallelWrittenNodeCheck),
      'shop',
      change,
    );
    expect(large!.inWorker).toBe(true);
    expect(handed.written.errors.map((e) => e.code)).toContain('json.invalid');
    expect(handed.written).toEqual(handed.folder);
  });

  it('rejects the report, naming why, when the worker cannot check what it was sent, and never leaves the compile waiting', async () => {
    const check = parallel({ handoverBytes: 0, maxQueuedChunks: 1 })('/nowhere');
    const sink = check.sink(DISCARDING_SINK);
    const file = sink.open('facts.en.jsonl');
    // The sink saw 3 bytes; a close that claims 5 is a broken compile, which the worker refuses.
    file.write(Buffer.from('{}\n'));
    file.close({ path: 'facts.en.jsonl', checksum: 'sha256:' + '0'.repeat(64), bytes: 5 });
    for (let i = 0; i < 50; i++) sink.open(`more-${i}.jsonl`).write(Buffer.from('{}\n'));
    await expect(check.report()).rejects.toThrow(
      /the check of the written node failed: facts.en.jsonl: the sink saw 3 bytes, TrackedFile 5/,
    );
  });
});

/** Writes the file `name` of `dir` through `sink` in one chunk, and closes it as TrackedFile would. */
function writeWhole(sink: NodeSink, dir: string, name: string): void {
  const bytes = readFileSync(join(dir, name));
  const file = sink.open(name);
  file.write(bytes);
  file.close({
    path: name,
    checksum: 'sha256:' + createHash('sha256').update(bytes).digest('hex'),
    bytes: bytes.length,
    ...(name.endsWith('.jsonl') ? { records: bytes.toString('utf8').split('\n').length - 1 } : {}),
  });
}

describe('WrittenNodeCheck: the checks made ahead, while the compile writes', () => {
  it('checks most record files against the node during the compile, and the report takes them', async () => {
    let check: WrittenNodeCheck | undefined;
    const { written, folder } = await bothReports(
      (out) => (check = new WrittenNodeCheck(out, { recordsPassedSchemas: true })),
      'shop',
    );
    expect(written).toEqual(folder);
    // sources, then entities, facts, relationships, chunks and qa of both languages: all but citations and the priority feed.
    expect(check!.takenAhead).toBe(11);
    // Then every file of the last rank, once complete: citations, the priority feed and the documents (manifest.json is the report's own).
    expect(check!.takenEarly).toBe(readdirSync(join(PROJECT_ROOT, 'golden', 'shop')).length - 12);
    // A second report checks every file again (the first one's read added the other files' ids).
    expect(await check!.report()).toEqual(folder);
    expect(check!.takenAhead).toBe(0);
    expect(check!.takenEarly).toBe(0);
  });

  it('reads the facts and the last-rank files back from the folder the sink writes into, instead of holding their fields', async () => {
    const dir = join(PROJECT_ROOT, 'golden', 'shop');
    const names = readdirSync(dir)
      .filter((f) => f !== 'manifest.json')
      .sort(compareInReadOrder);
    const folder = await validateNode(dir, { recordsPassedSchemas: true });
    // The folder holds the bytes written: every check ahead and early stands.
    const check = new WrittenNodeCheck(dir, { recordsPassedSchemas: true, folder: dir });
    const sink = check.sink(DISCARDING_SINK);
    for (const name of [...names, 'manifest.json']) writeWhole(sink, dir, name);
    expect(await check.report()).toEqual(folder);
    expect(check.takenAhead).toBe(11);
    expect(check.takenEarly).toBe(names.length - 11);

    // A folder whose facts are not the bytes written: the checks ahead end there, and the report is validateNode's on that folder.
    const { dir: temp, cleanup } = makeTempDir('nodectl-written-back-');
    cleanups.push(cleanup);
    cpSync(dir, temp, { recursive: true });
    const facts = readFileSync(join(temp, 'facts.en.jsonl'), 'utf8');
    writeFileSync(
      join(temp, 'facts.en.jsonl'),
      facts.replace(/"subject_entity_id":"entity_[0-9a-f]+"/, '"subject_entity_id":"entity_000000000000000000000000"'),
    );
    const changed = new WrittenNodeCheck(temp, { recordsPassedSchemas: true, folder: temp });
    const changedSink = changed.sink(DISCARDING_SINK);
    for (const name of [...names, 'manifest.json']) writeWhole(changedSink, dir, name);
    const report = await changed.report();
    expect(changed.takenAhead).toBe(0);
    expect(report.errors.map((e) => e.code)).toEqual(
      expect.arrayContaining(['file.checksum_mismatch', 'ref.dangling']),
    );
    expect(report).toEqual(await validateNode(temp, { recordsPassedSchemas: true }));
  });

  it("checks a last-rank file again in the report when a file defining ids came after it was checked early, with validateNode's report", async () => {
    const dir = join(PROJECT_ROOT, 'golden', 'shop');
    // citations.jsonl cites the Q&A of qa.en.jsonl, which the compile writes after it here: checked early, it met none of them.
    const late = 'qa.en.jsonl';
    const names = readdirSync(dir)
      .filter((f) => f !== late && f !== 'manifest.json')
      .sort(compareInReadOrder);
    const check = new WrittenNodeCheck(dir, { recordsPassedSchemas: true });
    const sink = check.sink(DISCARDING_SINK);
    for (const name of [...names, late, 'manifest.json']) writeWhole(sink, dir, name);
    const report = await check.report();
    // Every file defining ids was checked ahead (qa.en.jsonl once the manifest opened), but the early checks met ten of the eleven.
    expect(check.takenAhead).toBe(11);
    expect(check.takenEarly).toBe(0);
    expect(report).toEqual(await validateNode(dir, { recordsPassedSchemas: true }));
    expect(report.ok).toBe(true);
  });

  it("checks every file again in the report when a file opened later sorts before one already checked, with validateNode's report", async () => {
    const dir = join(PROJECT_ROOT, 'golden', 'shop');
    // English first: entities.en and facts.en are checked once relationships.en opens; then entities.de sorts before them.
    const order = [
      'sources.jsonl',
      'facts.en.jsonl',
      'entities.en.jsonl',
      'relationships.en.jsonl',
      'facts.de.jsonl',
      'entities.de.jsonl',
    ];
    const rest = readdirSync(dir)
      .filter((f) => !order.includes(f) && f !== 'manifest.json')
      .sort();
    const check = new WrittenNodeCheck(dir, { recordsPassedSchemas: true });
    const sink = check.sink(DISCARDING_SINK);
    for (const name of [...order, ...rest, 'manifest.json']) writeWhole(sink, dir, name);
    const report = await check.report();
    expect(check.takenAhead).toBe(0);
    expect(report).toEqual(await validateNode(dir, { recordsPassedSchemas: true }));
  });
});
