#!/usr/bin/env node
// Builds src/ into dist/ with tsc's incremental mode (tsconfig.json keeps its state in
// dist/.tsbuildinfo, so an emptied or deleted dist/ is a clean build), removes the files of
// dist/ whose source is gone, which tsc leaves behind, then bundles what runs as a program (the
// CLI and each worker thread) into dist/bundle/ with esbuild: a process then loads a few files
// instead of hundreds (docs/performance.md "Start time"). Last, the web console (src/console, browser
// code with its own tsconfig) is type-checked and built by vite into dist/console/, only when a file
// under src/console or package-lock.json is newer than its last build (docs/console.md).
//   node scripts/build.mjs             what `npm run build` runs: tsc decides what changed
//   node scripts/build.mjs --if-stale  what `npm start` runs: no tsc at all when nothing under src/,
//                                      tsconfig.json or package-lock.json is newer than the last build
//                                      (and no vite build unless src/console changed, as always)
//   node scripts/build.mjs --clean     what `npm pack` runs: dist/ removed first
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, rmdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { basename } from 'node:path';
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
    // esbuild's output, remade by every build, and vite's (the console), remade when its sources change.
    if (path === join(dist, 'bundle') || path === join(dist, 'console')) continue;
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

/** Every `*-worker.js` of the build: each is a thread's entry point, loaded by its file name (workerModuleUrl). */
function workerEntries(dir) {
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...workerEntries(path));
    else if (entry.name.endsWith('-worker.js')) found.push(path);
  }
  return found;
}

/**
 * dist/bundle/: nodectl.js (bin/nodectl's entry) and every worker, each under its own file name
 * beside the shared chunks, so a worker's URL next to the module that starts it still resolves.
 * Packages stay external only where they must: the native addons (better-sqlite3, and sqlite-vec,
 * which finds its platform package's binary by resolving a path from its own file), the AWS SDK (large, and
 * loaded only for the s3 target) and pg (loaded only for a postgres:// controlStore; its optional pg-native is
 * never installed). No minifying: stack traces keep their names.
 */
async function bundle(dist) {
  const { build } = await import('esbuild');
  const out = join(dist, 'bundle');
  rmSync(out, { recursive: true, force: true });
  const entryPoints = { nodectl: join(dist, 'cli', 'main.js') };
  for (const worker of workerEntries(dist)) {
    const name = basename(worker, '.js');
    if (entryPoints[name]) throw new Error(`two workers named ${name}.js: workers are bundled by file name`);
    entryPoints[name] = worker;
  }
  await build({
    entryPoints,
    outdir: out,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.19',
    chunkNames: 'chunk-[hash]',
    // @fastify/cookie import()s the CommonJS `cookie`, whose named exports a bundle would lose (below).
    external: [
      'better-sqlite3',
      'sqlite-vec',
      '@aws-sdk/*',
      'pg',
      'pg-native',
      'react-devtools-core',
      '@fastify/cookie',
    ],
    // Packages written as CommonJS call require(); in an ES module it has to be made.
    banner: {
      js: "import { createRequire as __nodectlCreateRequire } from 'node:module'; const require = __nodectlCreateRequire(import.meta.url);",
    },
    legalComments: 'none',
    logLevel: 'error',
  });
  refuseLostExports(out);
}

/** CommonJS packages our own code import()s, and reads through `.default` (what Node gives too). */
const DEFAULT_READ = new Set(['undici']);

/**
 * An import() of a CommonJS package becomes a chunk whose only export is `default`: code that
 * reads named exports from it (`const { x } = await import('pkg')`) gets undefined in the bundle,
 * though it works unbundled. Such a chunk fails the build unless its package is known to be read
 * through `.default`; otherwise import it statically, read `.default`, or make it external.
 */
function refuseLostExports(out) {
  for (const name of readdirSync(out)) {
    const source = readFileSync(join(out, name), 'utf8');
    const match = /^export default require_(\w+)\(\);\s*$/m.exec(source);
    if (match && !DEFAULT_READ.has(match[1]))
      throw new Error(
        `dist/bundle/${name} is an import() of the CommonJS module require_${match[1]}: its named exports are lost in the bundle (scripts/build.mjs refuseLostExports)`,
      );
  }
}

/** Where vite writes the console; the marker's time is that of the last console build. */
const CONSOLE_MARKER = '.console-build';

/** True when the console was built and nothing it is built from (src/console, the lock file) changed since. */
export function isConsoleFresh(root, dist) {
  const inputs = [join(root, 'src', 'console'), join(root, 'package-lock.json')].filter((input) => existsSync(input));
  return isBuildFresh(join(dist, CONSOLE_MARKER), inputs) && existsSync(join(dist, 'console', 'index.html'));
}

/**
 * Type-checks src/console with its own tsconfig (the DOM, Preact's JSX) and builds it with vite
 * into dist/console/: hashed files under assets/ and an index.html without inline script (the
 * daemon's Content-Security-Policy allows none). Prints the JavaScript's gzipped size.
 */
async function buildConsole(root, dist) {
  const source = join(root, 'src', 'console');
  const out = join(dist, 'console');
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const check = spawnSync(process.execPath, [tsc, '-p', join(source, 'tsconfig.json')], { stdio: 'inherit' });
  if (check.status !== 0) return check.status ?? 1;
  const { build } = await import('vite');
  await build({
    configFile: false,
    root: source,
    base: '/console/',
    logLevel: 'warn',
    esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
    build: {
      outDir: out,
      emptyOutDir: true,
      // No inlined data: URIs nor the modulepreload polyfill: every file is its own, as the CSP wants.
      assetsInlineLimit: 0,
      modulePreload: { polyfill: false },
      target: 'es2022',
    },
  });
  const html = readFileSync(join(out, 'index.html'), 'utf8');
  if (/<script(?![^>]*\bsrc=)[^>]*>/i.test(html) || /\sstyle=/i.test(html))
    throw new Error('dist/console/index.html has an inline script or style: the console CSP refuses it');
  const assets = join(out, 'assets');
  const js = readdirSync(assets).filter((name) => name.endsWith('.js'));
  const gzipped = js.reduce((sum, name) => sum + gzipSync(readFileSync(join(assets, name))).length, 0);
  console.log(`nodectl: console built, ${js.length} JavaScript file(s), ${(gzipped / 1024).toFixed(1)} KiB gzipped`);
  writeFileSync(join(dist, CONSOLE_MARKER), `${gzipped}\n`);
  return 0;
}

async function main(args) {
  const src = join(ROOT, 'src');
  const dist = join(ROOT, 'dist');
  const buildInfo = join(dist, '.tsbuildinfo');
  if (args.has('--clean')) rmSync(dist, { recursive: true, force: true });
  const inputs = [src, join(ROOT, 'tsconfig.json'), join(ROOT, 'package-lock.json')];
  const consoleFresh = () => isConsoleFresh(ROOT, dist);
  if (args.has('--if-stale') && isBuildFresh(buildInfo, inputs) && existsSync(join(dist, 'bundle', 'nodectl.js')))
    return consoleFresh() ? 0 : buildConsole(ROOT, dist);

  const startedAt = new Date();
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const run = spawnSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.json')], { stdio: 'inherit' });
  if (run.status !== 0) {
    // tsc writes its state even when it reports errors: mark it old so the next start checks again.
    if (existsSync(buildInfo)) utimesSync(buildInfo, 0, 0);
    return run.status ?? 1;
  }
  pruneOrphans(dist, src);
  await bundle(dist);
  // tsc leaves the file alone when nothing needed emitting; the start time counts a file saved during the build as newer.
  utimesSync(buildInfo, startedAt, startedAt);
  return consoleFresh() ? 0 : buildConsole(ROOT, dist);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(new Set(process.argv.slice(2)));
}
