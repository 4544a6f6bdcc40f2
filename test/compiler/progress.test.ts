import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileFixture, loadFixture } from '../../src/compiler/fixture.js';
import { listFixtures } from '../../src/compiler/golden.js';
import { COMPILE_PASSES, CompileReporter, type CompileProgress } from '../../src/compiler/progress.js';
import { createMemorySink } from '../../src/compiler/sink.js';
import { PROJECT_ROOT } from '../helpers/paths.js';

// The compile's progress reports (issue: publish shows progress per stage, with counts): per pass,
// with knowledge records as validate counts them, and never a byte of difference in the node.
const FIXTURES = join(PROJECT_ROOT, 'fixtures');
const GOLDEN = join(PROJECT_ROOT, 'golden');

/** The record files each pass writes (the entity scan writes none). */
const RECORD_FILES: Partial<Record<string, RegExp>> = {
  sources: /^sources\.jsonl$/,
  facts: /^facts\.[^.]+\.jsonl$/,
  entities: /^entities\.[^.]+\.jsonl$/,
  relationships: /^relationships\.[^.]+\.jsonl$/,
  chunks: /^chunks\.[^.]+\.jsonl$/,
  qa: /^qa\.[^.]+\.jsonl$/,
};

describe('compile progress', () => {
  it.each(listFixtures(FIXTURES))('%s: the files are golden/ byte for byte with a listener', (name) => {
    const reports: CompileProgress[] = [];
    const sink = createMemorySink();
    compileFixture(loadFixture(join(FIXTURES, name)), sink, { onProgress: (p) => reports.push({ ...p }) });
    expect(reports.length).toBeGreaterThan(COMPILE_PASSES.length);
    expect([...sink.files.keys()].sort()).toEqual(readdirSync(join(GOLDEN, name)).sort());
    for (const [path, text] of sink.files) expect(text, path).toBe(readFileSync(join(GOLDEN, name, path), 'utf8'));
  });

  it.each(listFixtures(FIXTURES))(
    '%s: every pass reports its end, and the records of its end add up to its files',
    (name) => {
      const reports: CompileProgress[] = [];
      const result = compileFixture(loadFixture(join(FIXTURES, name)), createMemorySink(), {
        onProgress: (p) => reports.push({ ...p }),
      });
      const recordsOf = (pattern: RegExp | undefined) =>
        pattern === undefined
          ? 0
          : result.files.filter((f) => pattern.test(f.path)).reduce((n, f) => n + (f.records ?? 0), 0);
      // The report that ends each pass: the first with `done` one higher.
      const ends = COMPILE_PASSES.map((_, i) => reports.find((r) => r.done === i + 1));
      let before = 0;
      COMPILE_PASSES.forEach((pass, i) => {
        const end = ends[i];
        expect(end, pass).toMatchObject({ pass, total: COMPILE_PASSES.length });
        expect(end!.records - before, pass).toBe(recordsOf(RECORD_FILES[pass]));
        before = end!.records;
      });
      const { entities, facts, relationships, chunks, qa, sources } = result.counts;
      expect(reports.at(-1)).toEqual({
        done: COMPILE_PASSES.length,
        total: COMPILE_PASSES.length,
        pass: 'manifest',
        records: entities + facts + relationships + chunks + qa + sources,
      });
      // Never backwards: passes and records only grow from one report to the next.
      for (let i = 1; i < reports.length; i++) {
        expect(reports[i]!.done).toBeGreaterThanOrEqual(reports[i - 1]!.done);
        expect(reports[i]!.records).toBeGreaterThanOrEqual(reports[i - 1]!.records);
      }
    },
  );

  it('reports inside a pass every N rows, with the records written so far, and nothing without a listener', () => {
    const reports: CompileProgress[] = [];
    const reporter = new CompileReporter((p) => reports.push({ ...p }), 2);
    let written = 0;
    reporter.startPass('facts');
    reporter.startFile('facts.en.jsonl', () => written);
    for (let row = 0; row < 5; row++) {
      written++;
      reporter.row();
    }
    reporter.endFile(written);
    reporter.endPass();
    expect(reports).toEqual([
      { done: 0, total: COMPILE_PASSES.length, pass: 'facts', records: 0 },
      { done: 0, total: COMPILE_PASSES.length, pass: 'facts', file: 'facts.en.jsonl', records: 0 },
      { done: 0, total: COMPILE_PASSES.length, pass: 'facts', file: 'facts.en.jsonl', records: 2 },
      { done: 0, total: COMPILE_PASSES.length, pass: 'facts', file: 'facts.en.jsonl', records: 4 },
      { done: 1, total: COMPILE_PASSES.length, pass: 'facts', records: 5 },
    ]);
    const silent = new CompileReporter(undefined, 1);
    silent.startPass('facts');
    silent.row();
    silent.endPass();
  });
});
