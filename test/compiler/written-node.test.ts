import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { compileToDirectory, loadFixture, type NodeSink } from '../../src/compiler/index.js';
import { validateNode } from '../../src/compiler/validate/validate-node.js';
import { WrittenNodeCheck } from '../../src/compiler/validate/written-node.js';
import { buildGraphFromItems } from '../../src/graph/build-from-items.js';
import { makeTempDir, PROJECT_ROOT } from '../helpers/paths.js';
import { alteredSink } from './helpers.js';

const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

/**
 * Compiles a fixture into a new folder through a WrittenNodeCheck (with `change` applied to the
 * output ahead of it), and returns the check's report with the folder it wrote.
 */
async function compileChecked(name: string, change: Record<string, (text: string) => string | Buffer> = {}) {
  const { dir, cleanup } = makeTempDir('nodectl-written-');
  cleanups.push(cleanup);
  const out = join(dir, 'node');
  const fixture = loadFixture(join(PROJECT_ROOT, 'fixtures', name));
  const graph = buildGraphFromItems(fixture.items, fixture.site, { receivedAt: fixture.buildTime, editorial: fixture.editorial });
  const written = new WrittenNodeCheck(out, { recordsPassedSchemas: true });
  try {
    await compileToDirectory(graph.reader, fixture.site, out, { ...fixture.presentation, buildTime: fixture.buildTime, wrapSink: (sink: NodeSink) => alteredSink(written.sink(sink), change) });
  } finally {
    graph.close();
  }
  return { out, report: await written.report() };
}

/** The report of the check as written, and validateNode's on the folder it was written to, with the same rule for line schemas. */
async function bothReports(name: string, change: Record<string, (text: string) => string | Buffer> = {}) {
  const { out, report } = await compileChecked(name, change);
  return { written: report, folder: await validateNode(out, { recordsPassedSchemas: true }) };
}

const replaceFirstLine = (change: (line: string) => string) => (text: string) => {
  const [first, ...rest] = text.split('\n');
  return [change(first!), ...rest].join('\n');
};

describe('WrittenNodeCheck: validateNode\'s checks on the bytes the compiler writes', () => {
  it.each(['blog', 'docs', 'local-business', 'minimal', 'shop'])('passes the %s fixture with the report validateNode gives its folder, and writes the golden bytes', async (name) => {
    const { out, report } = await compileChecked(name);
    expect(report.errors).toEqual([]);
    expect(report).toEqual(await validateNode(out, { recordsPassedSchemas: true }));
    const golden = join(PROJECT_ROOT, 'golden', name);
    expect(readdirSync(out).sort()).toEqual(readdirSync(golden).sort());
    for (const file of readdirSync(golden)) expect(readFileSync(join(out, file)).equals(readFileSync(join(golden, file))), file).toBe(true);
  });

  const defects: Array<[string, Record<string, (text: string) => string | Buffer>, string[]]> = [
    ['a broken record line', { 'facts.en.jsonl': replaceFirstLine((line) => line.slice(0, -5)) }, ['json.invalid']],
    ['a uuid where a stable id is required', { 'entities.en.jsonl': (t) => t.replace(/"id":"entity_[0-9a-f]+"/, '"id":"3f2504e0-4f89-11d3-9a0c-0305e82c3301"') }, ['node.uuid_leak']],
    ['an internal field', { 'qa.de.jsonl': (t) => t.replace('"schema_version":"1.0.0"', '"schema_version":"1.0.0","stale":true') }, ['export.internal_field']],
    ['a reference to no record', { 'relationships.en.jsonl': (t) => t.replace(/"to_entity_id":"entity_[0-9a-f]+"/, '"to_entity_id":"entity_000000000000000000000000"') }, ['ref.dangling']],
    // facts are written before the entities they name, and checked after them
    ['a second fact per (subject, predicate) and a duplicate id', { 'facts.de.jsonl': (t) => t + t.split('\n')[0]! + '\n' }, ['jsonl.duplicate_id', 'export.superseded_fact']],
    ['a citation of no record', { 'citations.jsonl': (t) => t.replace(/"record_id":"fact_[0-9a-f]+"/, '"record_id":"fact_000000000000000000000000"') }, ['ref.dangling']],
    ['a reference to no record, then an internal field two lines on', { 'facts.en.jsonl': (t) => {
      const lines = t.split('\n');
      lines[0] = lines[0]!.replace(/"subject_entity_id":"entity_[0-9a-f]+"/, '"subject_entity_id":"entity_000000000000000000000000"');
      lines[2] = lines[2]!.replace('"schema_version":"1.0.0"', '"schema_version":"1.0.0","pinned":true');
      return lines.join('\n');
    } }, ['ref.dangling', 'export.internal_field']],
    ['a carriage return and no final newline', { 'sources.jsonl': (t) => t.replace('\n', '\r\n').slice(0, -1) }, ['file.crlf', 'jsonl.final_newline']],
    ['bytes that are not UTF-8', { 'chunks.en.jsonl': (t) => Buffer.concat([Buffer.from(t.slice(0, 10)), Buffer.from([0xff]), Buffer.from(t.slice(10))]) }, ['file.encoding']],
    ['a manifest whose checksum is not the bytes\'', { 'manifest.json': (t) => t.replace(/"checksum": "sha256:[0-9a-f]{6}/, '"checksum": "sha256:000000') }, ['file.checksum_mismatch']],
    ['llms.txt without its title', { 'llms.txt': () => 'no title\n' }, ['llms.no_title']],
  ];

  it.each(defects)('finds %s as validateNode finds it in the folder (same issues, same order)', async (_, change, codes) => {
    const { written, folder } = await bothReports('shop', change);
    expect(written.ok).toBe(false);
    expect(written).toEqual(folder);
    expect(written.errors.map((e) => e.code)).toEqual(expect.arrayContaining(codes));
  });

  it('keeps 50 issues of a code and counts the others, as validateNode does', async () => {
    const { written, folder } = await bothReports('shop', {
      'facts.en.jsonl': (t) => t + '\n'.repeat(40),
      'facts.de.jsonl': (t) => t + '\n'.repeat(30),
      'entities.en.jsonl': (t) => t + '\n'.repeat(70),
    });
    expect(written).toEqual(folder);
    expect(written.counts['jsonl.blank_line']).toBe(140);
    expect(written.errors.filter((e) => e.code === 'jsonl.blank_line').map((e) => e.file)).toEqual([...Array(50).fill('entities.en.jsonl')]);
    expect(written.truncated).toBe(true);
  });
});
