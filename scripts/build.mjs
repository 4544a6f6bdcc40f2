#!/usr/bin/env node
// Builds src/ into dist/ with tsc's incremental mode (tsconfig.json keeps its state in
// dist/.tsbuildinfo, so an emptied or deleted dist/ is a clean build), then removes the files of
// dist/ whose source is gone, which tsc leaves behind.
//   node scripts/build.mjs             what `npm run build` runs: tsc decides what changed
//   node scripts/build.mjs --if-stale  what `npm start` runs: no tsc at all when nothing under src/,
//                                      tsconfig.json or package-lock.json is newer than the last build
//   node scripts/build.mjs --clean     what `npm pack` runs: dist/ removed first
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, rmdirSync, statSync, utimesSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUTPUT_SUFFIXES = ['.d.ts.map', '.js.map', '.d.ts', '.js'];

/** The newest modification time of a folder's files and of the folders themselves (a removed file changes its folder's). */
function newestMtime(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

/** True when the build state exists and no input is newer than it. */
export function isBuildFresh(buildInfo, inputs) {
  if (!existsSync(buildInfo)) return false;
  const built = statSync(buildInfo).mtimeMs;
  return inputs.every((input) => newestMtime(input) <= built);
}

/** Deletes the files of `dist` with no source file left in `src`, then the folders left empty. */
export function pruneOrphans(dist, src, dir = dist) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      pruneOrphans(dist, src, path);
      if (readdirSync(path).length === 0) rmdirSync(path);
      continue;
    }
    const suffix = OUTPUT_SUFFIXES.find((s) => entry.name.endsWith(s));
    if (!suffix) continue;
    const source = join(src, relative(dist, path)).slice(0, -suffix.length);
    if (!existsSync(`${source}.ts`) && !existsSync(`${source}.tsx`)) rmSync(path);
  }
}

function main(args) {
  const src = join(ROOT, 'src');
  const dist = join(ROOT, 'dist');
  const buildInfo = join(dist, '.tsbuildinfo');
  if (args.has('--clean')) rmSync(dist, { recursive: true, force: true });
  const inputs = [src, join(ROOT, 'tsconfig.json'), join(ROOT, 'package-lock.json')];
  if (args.has('--if-stale') && isBuildFresh(buildInfo, inputs)) return 0;

  const startedAt = new Date();
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const run = spawnSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.json')], { stdio: 'inherit' });
  if (run.status !== 0) {
    // tsc writes its state even when it reports errors: mark it old so the next start checks again.
    if (existsSync(buildInfo)) utimesSync(buildInfo, 0, 0);
    return run.status ?? 1;
  }
  pruneOrphans(dist, src);
  // tsc leaves the file alone when nothing needed emitting; the start time counts a file saved during the build as newer.
  utimesSync(buildInfo, startedAt, startedAt);
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = main(new Set(process.argv.slice(2)));
}
