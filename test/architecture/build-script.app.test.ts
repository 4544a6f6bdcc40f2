import { existsSync, mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isBuildFresh, isConsoleFresh, pruneOrphans } from '../../scripts/build.mjs';
import { makeTempDir } from '../helpers/paths.js';

/** scripts/build.mjs: `npm start` skips tsc when nothing changed, and no build keeps the output of a removed source. */
let temp: { dir: string; cleanup: () => void };
let src: string;
let dist: string;

function write(path: string, text = ''): string {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
  return path;
}

/** Sets a file's or folder's modification time to `seconds` after the epoch. */
function age(path: string, seconds: number): void {
  utimesSync(path, seconds, seconds);
}

beforeEach(() => {
  temp = makeTempDir('nodectl-build-script-');
  src = join(temp.dir, 'src');
  dist = join(temp.dir, 'dist');
});
afterEach(() => temp.cleanup());

describe('pruneOrphans', () => {
  it('removes the outputs of a removed source file and the folders left empty, keeping the rest', () => {
    write(join(src, 'cli', 'main.ts'));
    for (const suffix of ['.js', '.js.map', '.d.ts']) {
      write(join(dist, 'cli', `main${suffix}`));
      write(join(dist, 'cli', `gone${suffix}`));
      write(join(dist, 'old', `removed${suffix}`));
    }
    write(join(dist, '.tsbuildinfo'));

    pruneOrphans(dist, src);

    expect(existsSync(join(dist, 'cli', 'main.js'))).toBe(true);
    expect(existsSync(join(dist, 'cli', 'main.js.map'))).toBe(true);
    expect(existsSync(join(dist, 'cli', 'main.d.ts'))).toBe(true);
    expect(existsSync(join(dist, 'cli', 'gone.js'))).toBe(false);
    expect(existsSync(join(dist, 'cli', 'gone.d.ts'))).toBe(false);
    expect(existsSync(join(dist, 'old'))).toBe(false);
    expect(existsSync(join(dist, '.tsbuildinfo'))).toBe(true);
  });

  it("keeps vite's console output, which has no source of the same name", () => {
    write(join(src, 'console', 'index.ts'));
    const script = write(join(dist, 'console', 'assets', 'index-Abc123.js'));
    const sourceMap = write(join(dist, 'console', 'assets', 'index-Abc123.js.map'));
    pruneOrphans(dist, src);
    expect(existsSync(script)).toBe(true);
    expect(existsSync(sourceMap)).toBe(true);
  });
});

describe('isConsoleFresh (vite runs only when the console changed)', () => {
  let consoleFile: string;
  beforeEach(() => {
    consoleFile = write(join(src, 'console', 'app.tsx'));
    write(join(dist, 'console', 'index.html'));
    for (const path of [consoleFile, join(src, 'console'), src]) age(path, 1000);
  });

  it('is stale before the first console build, fresh after it', () => {
    expect(isConsoleFresh(temp.dir, dist)).toBe(false);
    age(write(join(dist, '.console-build')), 2000);
    expect(isConsoleFresh(temp.dir, dist)).toBe(true);
  });

  it('is stale when a console file changed, not when another part of src/ did', () => {
    age(write(join(dist, '.console-build')), 2000);
    age(write(join(src, 'cli', 'main.ts')), 3000);
    expect(isConsoleFresh(temp.dir, dist)).toBe(true);
    age(consoleFile, 3000);
    expect(isConsoleFresh(temp.dir, dist)).toBe(false);
  });

  it('is stale when the built index.html is gone', () => {
    age(write(join(dist, '.console-build')), 2000);
    rmSync(join(dist, 'console', 'index.html'));
    expect(isConsoleFresh(temp.dir, dist)).toBe(false);
  });
});

describe('isBuildFresh', () => {
  let buildInfo: string;
  let file: string;
  beforeEach(() => {
    file = write(join(src, 'cli', 'main.ts'), 'export {};\n');
    age(file, 1000);
    age(join(src, 'cli'), 1000);
    age(src, 1000);
    buildInfo = join(dist, '.tsbuildinfo');
  });

  it('is stale without a build state (dist/ missing or emptied)', () => {
    expect(isBuildFresh(buildInfo, [src])).toBe(false);
  });

  it('is fresh when no input is newer than the build state', () => {
    age(write(buildInfo), 2000);
    expect(isBuildFresh(buildInfo, [src])).toBe(true);
  });

  it('is stale when a source file changed after the build', () => {
    age(write(buildInfo), 2000);
    age(file, 3000);
    expect(isBuildFresh(buildInfo, [src])).toBe(false);
  });

  it('is stale when a source file was removed after the build (its folder changed)', () => {
    age(write(buildInfo), 2000);
    rmSync(file);
    age(join(src, 'cli'), 3000);
    expect(isBuildFresh(buildInfo, [src])).toBe(false);
  });

  it('is stale when another input (tsconfig.json) changed', () => {
    const tsconfig = write(join(temp.dir, 'tsconfig.json'), '{}');
    age(write(buildInfo), 2000);
    age(tsconfig, 3000);
    expect(isBuildFresh(buildInfo, [src, tsconfig])).toBe(false);
  });
});
