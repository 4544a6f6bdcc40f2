import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileToDirectory, loadFixture, type NodeSink, type SinkFile } from '../../src/compiler/index.js';
import type { CopiedKey, LinePrevious } from '../../src/compiler/sink.js';
import { readPreviousNode } from '../../src/compiler/previous.js';
import type { PreviousNode } from '../../src/compiler/types.js';
import { KnownLinesCheck } from '../../src/compiler/validate/known-lines.js';
import { validateNode } from '../../src/compiler/validate/validate-node.js';
import { buildGraphFromItems } from '../../src/ingest/graph/build-from-items.js';
import { makeTempDir, PROJECT_ROOT } from '../helpers/paths.js';
import { alteredSink } from './helpers.js';

// KnownLinesCheck checks a compile against a live version from the records the compiler wrote.
// Each case below hands it a record the compiler did not write (a defect between the compiler and
// the check, as a compiler bug would make one): it must not pass the node, so that the publish
// validates the folder instead; a line said to be the live version's validated bytes keeps its
// own checks from then.

const SHOP = join(PROJECT_ROOT, 'fixtures', 'shop');
const temp = makeTempDir('nodectl-known-lines-');
afterAll(() => temp.cleanup());
let runs = 0;
let liveDir = '';

type Tamper = (record: Record<string, unknown>, previous: LinePrevious) => [Record<string, unknown>, LinePrevious];

/** A sink whose file `path` tells the check of a changed `nth` line (its bytes stay as written). */
function tamperedSink(inner: NodeSink, path: string, nth: number, tamper: Tamper): NodeSink {
  return {
    open(opened) {
      const target = inner.open(opened);
      if (opened !== path) return target;
      let n = 0;
      const file: SinkFile = {
        write: (chunk) => target.write(chunk),
        close: (written) => target.close(written),
        line: (line, record, previous) => {
          const [told, as] =
            ++n === nth ? tamper({ ...record } as Record<string, unknown>, previous) : [record, previous];
          target.line?.(line, told, as);
        },
      };
      return file;
    },
  };
}

/**
 * Compiles the shop fixture against the live version through a KnownLinesCheck behind `wrap`,
 * told of the live version's files (`live`: as they are, altered, or not at all).
 */
async function compileChecked(
  wrap: (sink: NodeSink) => NodeSink = (sink) => sink,
  live: (files: PreviousNode['files']) => PreviousNode['files'] | undefined = (files) => files,
) {
  const fixture = loadFixture(SHOP);
  const graph = buildGraphFromItems(fixture.items, fixture.site, {
    receivedAt: fixture.buildTime,
    editorial: fixture.editorial,
  });
  const out = join(temp.dir, `node-${++runs}`);
  const previous = (await readPreviousNode(liveDir, { validated: true }))!;
  const check = new KnownLinesCheck(out, live(previous.files));
  try {
    await compileToDirectory(graph.reader, fixture.site, out, {
      ...fixture.presentation,
      buildTime: '2026-06-01T00:00:00Z',
      previous,
      wrapSink: (sink) => wrap(check.sink(sink)),
    });
  } finally {
    graph.close();
  }
  return { out, report: await check.report() };
}

beforeAll(async () => {
  const fixture = loadFixture(SHOP);
  const graph = buildGraphFromItems(fixture.items, fixture.site, {
    receivedAt: fixture.buildTime,
    editorial: fixture.editorial,
  });
  liveDir = join(temp.dir, 'live');
  try {
    await compileToDirectory(graph.reader, fixture.site, liveDir, {
      ...fixture.presentation,
      buildTime: fixture.buildTime,
    });
  } finally {
    graph.close();
  }
});

describe('KnownLinesCheck', () => {
  it("gives validateNode's report on the folder for a compile against the live version", async () => {
    const { out, report } = await compileChecked();
    expect(report).toBeDefined();
    expect(report?.ok).toBe(true);
    expect(report).toEqual(await validateNode(out, { recordsPassedSchemas: true, forNewVersion: true }));
  }, 60_000);

  const defects: Array<[string, string, number, Tamper]> = [
    [
      'a dangling fact reference',
      'qa.en.jsonl',
      1,
      (r) => [{ ...r, fact_ids: ['fact_000000000000000000000000'] }, 'changed'],
    ],
    [
      "a fact's subject that is no entity (looked up after the entities)",
      'facts.en.jsonl',
      2,
      (r) => [{ ...r, subject_entity_id: 'entity_000000000000000000000000' }, 'changed'],
    ],
    [
      'a citation of no record (looked up at the end)',
      'citations.jsonl',
      3,
      (r) => [{ ...r, record_id: 'fact_000000000000000000000000' }, 'changed'],
    ],
    ['a duplicate id', 'entities.en.jsonl', 2, (r) => [{ ...r, id: 'entity_000000000000000000000001' }, 'changed']],
    [
      'a uuid leak in a changed line',
      'chunks.en.jsonl',
      1,
      (r) => [{ ...r, id: '3f2504e0-4f89-11d3-9a0c-0305e82c3301' }, 'changed'],
    ],
    ['an internal field', 'sources.jsonl', 1, (r) => [{ ...r, editorial_status: 'approved' }, 'changed']],
  ];

  it.each(defects)(
    'does not pass %s',
    async (_, path, nth, tamper) => {
      const duplicate = path === 'entities.en.jsonl';
      const { report } = await compileChecked((sink) =>
        tamperedSink(
          duplicate
            ? tamperedSink(sink, path, 1, (r, p) => [{ ...r, id: 'entity_000000000000000000000001' }, p])
            : sink,
          path,
          nth,
          tamper,
        ),
      );
      expect(report).toBeUndefined();
    },
    60_000,
  );

  it("keeps the own checks of a line that is the live version's validated bytes", async () => {
    const { report } = await compileChecked((sink) =>
      tamperedSink(sink, 'sources.jsonl', 1, (r) => [{ ...r, editorial_status: 'approved' }, 'same']),
    );
    expect(report?.ok).toBe(true);
  }, 60_000);

  // Such a line's references were found in the live version: they are found now when every
  // record of the live version is still in its file, and are looked up otherwise.
  const dangling = (sink: NodeSink) =>
    tamperedSink(sink, 'qa.en.jsonl', 1, (r) => [{ ...r, fact_ids: ['fact_000000000000000000000000'] }, 'same']);

  it("leaves out the references of a line that is the live version's bytes while the live records are all kept", async () => {
    expect((await compileChecked(dangling)).report?.ok).toBe(true);
  }, 60_000);

  it('does not pass a node whose live version had a record it lacks, when references were left out', async () => {
    const oneMore = (files: PreviousNode['files']) =>
      files.map((f) => (f.path === 'sources.jsonl' ? { ...f, records: f.records! + 1 } : f));
    expect((await compileChecked(dangling, oneMore)).report).toBeUndefined();
    expect((await compileChecked((sink) => sink, oneMore)).report).toBeUndefined();
  }, 60_000);

  it('looks every reference up when not told of the live version', async () => {
    expect((await compileChecked(dangling, () => undefined)).report).toBeUndefined();
    expect(
      (
        await compileChecked(
          (sink) => sink,
          () => undefined,
        )
      ).report?.ok,
    ).toBe(true);
  }, 60_000);

  // A line copied from the live version comes without its record (the compiler copies citations
  // so): where the file's checks need the record, the check parses the line.
  const toldWithoutRecords = (inner: NodeSink, path: string, text: (n: number, line: Buffer) => Buffer): NodeSink => ({
    open(opened) {
      const target = inner.open(opened);
      if (opened !== path) return target;
      let n = 0;
      return {
        write: (chunk) => target.write(chunk),
        close: (written) => target.close(written),
        line: (line) => target.line?.(text(++n, line), null, 'same'),
      };
    },
  });

  it('checks the ids of lines told without their records from their bytes', async () => {
    const asWritten = await compileChecked((sink) => toldWithoutRecords(sink, 'entities.en.jsonl', (_, line) => line));
    expect(asWritten.report?.ok).toBe(true);
    let first = Buffer.alloc(0);
    const secondAsFirst = (n: number, line: Buffer) => (n === 1 ? (first = Buffer.from(line)) : n === 2 ? first : line);
    const duplicate = await compileChecked((sink) => toldWithoutRecords(sink, 'entities.en.jsonl', secondAsFirst));
    expect(duplicate.report).toBeUndefined();
  }, 60_000);

  // A fact line copied so comes with its id and key fields (subject entity, predicate, language):
  // the fact key is checked from those, unparsed.
  const factsToldWithKeys = (inner: NodeSink, keyOf: (n: number, record: Record<string, string>) => CopiedKey) =>
    ({
      open(opened) {
        const target = inner.open(opened);
        if (opened !== 'facts.en.jsonl') return target;
        let n = 0;
        return {
          write: (chunk) => target.write(chunk),
          close: (written) => target.close(written),
          line: (line, record) => {
            const fields = record as Record<string, string>;
            target.line?.(line, null, 'same', fields.id, keyOf(++n, fields));
          },
        };
      },
    }) satisfies NodeSink;

  it('checks the fact keys of fact lines told with their key fields, without parsing them', async () => {
    const keyOf = (r: Record<string, string>): CopiedKey => ({
      subject_entity_id: r.subject_entity_id ?? r.subject!,
      predicate: r.predicate!,
      language: r.language!,
    });
    const asWritten = await compileChecked((sink) => factsToldWithKeys(sink, (_, r) => keyOf(r)));
    expect(asWritten.report?.ok).toBe(true);
    let first: CopiedKey | undefined;
    const secondAsFirst = (n: number, r: Record<string, string>) =>
      n === 1 ? (first = keyOf(r)) : n === 2 ? first! : keyOf(r);
    const duplicate = await compileChecked((sink) => factsToldWithKeys(sink, secondAsFirst));
    expect(duplicate.report).toBeUndefined();
  }, 60_000);

  it('leaves the report to the folder when a file reaches it without its lines', async () => {
    const { report } = await compileChecked((sink) => alteredSink(sink, { 'facts.en.jsonl': (t) => t }));
    expect(report).toBeUndefined();
  }, 60_000);
});
