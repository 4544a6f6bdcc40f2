import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { replaceDirectory } from './directory.js';
import { compileFixture, loadFixture } from './fixture.js';
import { createMemorySink } from './sink.js';
import { compareStrings } from './top-k.js';

/** One file that differs between a fixture's compiled node and its golden copy. */
export interface GoldenDifference {
  fixture: string;
  file: string;
  kind: 'missing' | 'unexpected' | 'changed';
  /** The first differing lines (at most 3), 1-based, as expected and actual text. */
  lines: Array<{ line: number; expected: string | null; actual: string | null }>;
}

export interface GoldenReport {
  ok: boolean;
  fixtures: Array<{ name: string; files: number; ok: boolean }>;
  differences: GoldenDifference[];
}

/** Fixture names under `fixturesDir`: every folder holding a site.json, sorted. */
export function listFixtures(fixturesDir: string): string[] {
  if (!existsSync(fixturesDir)) return [];
  return readdirSync(fixturesDir)
    .filter((name) => existsSync(join(fixturesDir, name, 'site.json')))
    .sort(compareStrings);
}

function compileInMemory(fixtureDir: string): Map<string, string> {
  const sink = createMemorySink();
  compileFixture(loadFixture(fixtureDir), sink);
  return sink.files;
}

function firstDifferences(expected: string, actual: string): GoldenDifference['lines'] {
  const a = expected.split('\n');
  const b = actual.split('\n');
  const out: GoldenDifference['lines'] = [];
  for (let i = 0; i < Math.max(a.length, b.length) && out.length < 3; i++) {
    if (a[i] !== b[i]) out.push({ line: i + 1, expected: a[i] ?? null, actual: b[i] ?? null });
  }
  return out;
}

/** Compiles every fixture and compares it byte for byte with golden/<name>/. */
export function checkGolden(fixturesDir: string, goldenDir: string, only?: string[]): GoldenReport {
  const report: GoldenReport = { ok: true, fixtures: [], differences: [] };
  for (const name of listFixtures(fixturesDir).filter(
    (n) => only === undefined || only.length === 0 || only.includes(n),
  )) {
    const files = compileInMemory(join(fixturesDir, name));
    const dir = join(goldenDir, name);
    const expectedNames = existsSync(dir) ? readdirSync(dir).filter((f) => statSync(join(dir, f)).isFile()) : [];
    const names = [...new Set([...files.keys(), ...expectedNames])].sort(compareStrings);
    let ok = true;
    for (const file of names) {
      const actual = files.get(file);
      const expected = expectedNames.includes(file) ? readFileSync(join(dir, file), 'utf8') : undefined;
      if (actual === expected) continue;
      ok = false;
      const kind = expected === undefined ? 'unexpected' : actual === undefined ? 'missing' : 'changed';
      report.differences.push({ fixture: name, file, kind, lines: firstDifferences(expected ?? '', actual ?? '') });
    }
    report.fixtures.push({ name, files: files.size, ok });
    report.ok &&= ok;
  }
  return report;
}

/** Recompiles every fixture into golden/<name>/ (each replaced atomically). */
export function updateGolden(
  fixturesDir: string,
  goldenDir: string,
  only?: string[],
): Array<{ name: string; files: number }> {
  const updated: Array<{ name: string; files: number }> = [];
  mkdirSync(goldenDir, { recursive: true });
  for (const name of listFixtures(fixturesDir).filter(
    (n) => only === undefined || only.length === 0 || only.includes(n),
  )) {
    const files = compileInMemory(join(fixturesDir, name));
    const temp = join(goldenDir, `.${name}.tmp-${process.pid}`);
    mkdirSync(temp, { recursive: true });
    for (const [file, text] of [...files.entries()].sort(([a], [b]) => compareStrings(a, b)))
      writeFileSync(join(temp, file), text);
    replaceDirectory(temp, join(goldenDir, name));
    updated.push({ name, files: files.size });
  }
  return updated;
}

/** A readable diff of the first differences, for people. */
export function formatGoldenReport(report: GoldenReport): string {
  if (report.ok)
    return `golden: ${report.fixtures.length} fixtures match byte for byte (${report.fixtures.map((f) => f.name).join(', ')})`;
  const lines = [`golden: ${report.differences.length} files differ`];
  for (const d of report.differences.slice(0, 10)) {
    lines.push(
      '',
      `${d.fixture}/${d.file}: ${d.kind === 'missing' ? 'not produced any more (golden has it)' : d.kind === 'unexpected' ? 'new file (golden lacks it)' : 'changed'}`,
    );
    for (const l of d.lines) {
      lines.push(`  line ${l.line}:`);
      if (l.expected !== null) lines.push(`  - ${clip(l.expected)}`);
      if (l.actual !== null) lines.push(`  + ${clip(l.actual)}`);
    }
  }
  if (report.differences.length > 10) lines.push('', `... and ${report.differences.length - 10} more files`);
  lines.push('', 'If the change is intended, run `nodectl golden update` and commit golden/ with the reason.');
  return lines.join('\n');
}

function clip(text: string): string {
  return text.length > 400 ? text.slice(0, 400) + '…' : text;
}
