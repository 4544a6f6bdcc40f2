import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/paths.js';

/**
 * A clone of this repository has nothing beside it: no ../shared folder with the contract text,
 * the signing vectors or the corpus. Whatever the code, tests, scripts and docs need is in the
 * repository, and the contract they cite is docs/contract.md.
 */
const SCANNED = ['src', 'test', 'scripts', 'bench', 'docs', 'README.md', 'package.json'];
const THIS_FILE = 'test/foundation/standalone.test.ts';

const OUTSIDE_PATHS: ReadonlyArray<{ pattern: RegExp; why: string }> = [
  { pattern: /\.\.\/shared\b/, why: 'path to ../shared' },
  { pattern: /['"]\.\.['"]\s*,\s*['"]shared['"]/, why: "path.join(..., '..', 'shared')" },
  { pattern: /\/shared\/(?:spec|vectors|corpus)\b/, why: 'path into shared/' },
];
const CONTRACT_CITATION = { pattern: /\b(?:SPEC|DECISIONS)\.md\b/, why: 'cites SPEC.md or DECISIONS.md (cite docs/contract.md#<anchor>)' };

function citationsApply(path: string): boolean {
  return path.startsWith('src/') || path.startsWith('docs/') || path === 'README.md';
}

function trackedFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '-z', '--', ...SCANNED], { cwd: PROJECT_ROOT, encoding: 'utf8' });
  return out.split('\0').filter((path) => path !== '' && path !== THIS_FILE);
}

/** Every line of a tracked file that points outside the repository, as `path:line: why: text`. */
function findOutsideReferences(): string[] {
  const offenders: string[] = [];
  for (const path of trackedFiles()) {
    let text: string;
    try {
      text = readFileSync(join(PROJECT_ROOT, path), 'utf8');
    } catch {
      continue; // Tracked but deleted in the working tree.
    }
    const rules = citationsApply(path) ? [...OUTSIDE_PATHS, CONTRACT_CITATION] : OUTSIDE_PATHS;
    text.split('\n').forEach((line, index) => {
      for (const rule of rules) {
        if (rule.pattern.test(line)) offenders.push(`${path}:${index + 1}: ${rule.why}: ${line.trim().slice(0, 160)}`);
      }
    });
  }
  return offenders;
}

describe('the repository stands alone', () => {
  it('scans the tracked files', () => {
    const files = trackedFiles();
    expect(files).toContain('package.json');
    expect(files).toContain('test/data/connector-hmac-v1.json');
    expect(files.some((path) => path.startsWith('src/'))).toBe(true);
  });

  it('the rules catch what they are for', () => {
    expect(OUTSIDE_PATHS.some((r) => r.pattern.test("join(root, '..', 'shared', 'vectors')"))).toBe(true);
    expect(OUTSIDE_PATHS.some((r) => r.pattern.test('see ../shared/STYLE.md'))).toBe(true);
    expect(OUTSIDE_PATHS.some((r) => r.pattern.test("resolve('/work/shared/corpus/x')"))).toBe(true);
    expect(CONTRACT_CITATION.pattern.test('// as SPEC.md says')).toBe(true);
    expect(CONTRACT_CITATION.pattern.test('// docs/contract.md#connector-signing')).toBe(false);
    expect(OUTSIDE_PATHS.some((r) => r.pattern.test('state shared by the daemon'))).toBe(false);
  });

  it('no tracked file of src, test, scripts, bench, docs, README.md or package.json refers to a file outside the repository', () => {
    const offenders = findOutsideReferences();
    expect(offenders, `${offenders.length} reference(s) to files outside the repository:\n${offenders.join('\n')}\n`).toEqual([]);
  });
});
