import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/paths.js';

/**
 * A test file's name says its kind (docs/contributing.md "Tests"): x.test.ts (unit),
 * x.app.test.ts, x.process.test.ts. test/setup/unit.ts and app.ts refuse at run time what a kind
 * may not do; this checks the other way: a file named process does start one.
 */
const TEST_DIR = join(PROJECT_ROOT, 'test');
const testFiles = readdirSync(TEST_DIR, { recursive: true, encoding: 'utf8' })
  .filter((path) => path.endsWith('.test.ts'))
  .map((path) => join(TEST_DIR, path))
  .sort();

/** What starts a process: the helpers that spawn bin/nodectl, and the modules that spawn anything. */
const SPAWNS =
  /\bfrom '(?:execa|node:child_process|@modelcontextprotocol\/sdk\/client\/stdio\.js)'|\b(?:runNodectl|startTestDaemon|startCliHttpFixture)\b/;

/** The text of `file` and of the test-local modules it imports, transitively (not src/, not packages). */
function textWithLocalImports(file: string, seen = new Set<string>()): string {
  if (seen.has(file)) return '';
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  const local = [...text.matchAll(/from '(\.\.?\/[^']+)'/g)]
    .map((m) => resolve(dirname(file), m[1]!.replace(/\.js$/, '.ts')))
    .filter((path) => path.startsWith(TEST_DIR));
  return [text, ...local.map((path) => textWithLocalImports(path, seen))].join('\n');
}

describe('test files are named by their kind', () => {
  it('finds the test files', () => {
    expect(testFiles.length).toBeGreaterThan(100);
  });

  it('every test file is x.test.ts, x.app.test.ts or x.process.test.ts', () => {
    const odd = testFiles
      .map((file) => relative(PROJECT_ROOT, file))
      .filter((path) => /\.[a-z]+\.test\.ts$/.test(path) && !/\.(app|process)\.test\.ts$/.test(path));
    expect(odd).toEqual([]);
  });

  it('every x.process.test.ts starts a process (else it is an app or a unit test, and runs with them)', () => {
    const named = testFiles.filter((file) => file.endsWith('.process.test.ts'));
    expect(
      named.filter((file) => !SPAWNS.test(textWithLocalImports(file))).map((file) => relative(PROJECT_ROOT, file)),
    ).toEqual([]);
  });

  it('a file that imports what spawns is named x.process.test.ts', () => {
    const others = testFiles.filter((file) => !file.endsWith('.process.test.ts') && file !== import.meta.filename); // this file names them
    expect(
      others.filter((file) => SPAWNS.test(textWithLocalImports(file))).map((file) => relative(PROJECT_ROOT, file)),
    ).toEqual([]);
  });
});

describe('test files share their fork (isolate: false)', () => {
  it('no test file replaces a module with vi.mock: in a fork that loaded it for an earlier file, the mock would not reach it', () => {
    const mocking = testFiles.filter(
      (file) => file !== import.meta.filename && /\bvi\.(?:do)?[mM]ock\(/.test(readFileSync(file, 'utf8')),
    );
    expect(mocking.map((file) => relative(PROJECT_ROOT, file))).toEqual([]);
  });
});
