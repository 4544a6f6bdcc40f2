import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/paths.js';

/**
 * A clone of this repository has nothing beside it: no sibling `shared` folder with the contract text,
 * the signing vectors or the corpus. Whatever the code, tests, scripts and docs need is in the
 * repository, and the contract they cite is docs/contract.md.
 */
const SCANNED = ['src', 'test', 'scripts', 'bench', 'docs', 'README.md', 'package.json'];
const THIS_FILE = 'test/architecture/standalone.process.test.ts';

/** The sibling folder's name, built so this file's own text does not match the rules it states. */
const SIBLING = ['..', 'shared'].join('/');

const OUTSIDE_PATHS: ReadonlyArray<{ pattern: RegExp; why: string }> = [
  { pattern: /\.\.\/shared\b/, why: `path to ${SIBLING}` },
  { pattern: /['"]\.\.['"]\s*,\s*['"]shared['"]/, why: "path.join(..., '..', 'shared')" },
  { pattern: /\/shared\/(?:spec|vectors|corpus)\b/, why: 'path into shared/' },
];
const CONTRACT_CITATION = {
  pattern: /\b(?:SPEC|DECISIONS)\.md\b/,
  why: 'cites SPEC.md or DECISIONS.md (cite docs/contract.md#<anchor>)',
};

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

/** GitHub's anchor of a markdown heading: lower case, punctuation dropped, spaces as hyphens. */
function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9 _-]/g, '')
    .replace(/ /g, '-');
}

function contractAnchors(): Set<string> {
  const text = readFileSync(join(PROJECT_ROOT, 'docs', 'contract.md'), 'utf8');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => headingAnchor(m[1]!)));
}

/**
 * Every `contract.md#<anchor>` cited by a tracked file (and
 * every `](#anchor)` inside contract.md) that names no heading.
 */
function findBrokenContractAnchors(): string[] {
  const anchors = contractAnchors();
  const files = new Set([...trackedFiles(), 'docs/contract.md']);
  const broken: string[] = [];
  for (const path of files) {
    let text: string;
    try {
      text = readFileSync(join(PROJECT_ROOT, path), 'utf8');
    } catch {
      continue;
    }
    const cited = /contract\.md#([A-Za-z0-9_-]+)/g;
    const local = path === 'docs/contract.md' ? /\]\(#([A-Za-z0-9_-]+)\)/g : undefined;
    text.split('\n').forEach((line, index) => {
      for (const pattern of local ? [cited, local] : [cited]) {
        for (const match of line.matchAll(pattern)) {
          if (!anchors.has(match[1]!))
            broken.push(`${path}:${index + 1}: #${match[1]} is not a heading of docs/contract.md`);
        }
      }
    });
  }
  return broken;
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
    expect(OUTSIDE_PATHS.some((r) => r.pattern.test(`see ${SIBLING}/STYLE.md`))).toBe(true);
    expect(OUTSIDE_PATHS.some((r) => r.pattern.test(`resolve('/work${SIBLING.slice(2)}/corpus/x')`))).toBe(true);
    expect(CONTRACT_CITATION.pattern.test('// as SPEC.md says')).toBe(true);
    expect(CONTRACT_CITATION.pattern.test('// docs/contract.md#connector-signing')).toBe(false);
    expect(OUTSIDE_PATHS.some((r) => r.pattern.test('state shared by the daemon'))).toBe(false);
  });

  it('every docs/contract.md#<anchor> that is cited names a heading of docs/contract.md', () => {
    expect(headingAnchor('Connector signing')).toBe('connector-signing');
    expect(headingAnchor('Node files')).toBe('node-files');
    expect(contractAnchors()).toContain('connector-signing');
    const broken = findBrokenContractAnchors();
    expect(broken, `${broken.length} citation(s) of a missing anchor:\n${broken.join('\n')}\n`).toEqual([]);
  });

  it('no tracked file of src, test, scripts, bench, docs, README.md or package.json refers to a file outside the repository', () => {
    const offenders = findOutsideReferences();
    expect(
      offenders,
      `${offenders.length} reference(s) to files outside the repository:\n${offenders.join('\n')}\n`,
    ).toEqual([]);
  });
});
