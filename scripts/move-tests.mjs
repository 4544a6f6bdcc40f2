#!/usr/bin/env node
// Moves test files or folders with `git mv` and keeps every path to them working, mechanically:
// - in each file under test/, every string literal that is a relative path ('./x', '../y', in an
//   import, new URL(..., import.meta.url), join(...)) and names something that exists is resolved
//   against the file's old folder and written again from its new one (src/ and dist/ targets too;
//   an import's .js names its .ts);
// - elsewhere (docs/, scripts/, bench/, README.md, CHANGELOG.md, and test/ itself), each moved
//   file's or folder's repository path (test/...) is replaced by its new one.
// src/ is not edited: the paths to tests in its comments are listed at the end, to update there
// (with docs/api.md, which is rendered from src/). Build first (npm run build): a literal naming
// dist/ is rewritten only when what it names exists.
//
//   node scripts/move-tests.mjs test/graph:test/ingest/graph test/api/client.test.ts:test/sdk/api/client.test.ts ...
//   node scripts/move-tests.mjs --dry-run ...
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const dryRun = args.includes('--dry-run');
const pairs = args
  .filter((a) => a !== '--dry-run')
  .map((a) => {
    const [from, to] = a.split(':');
    if (!from?.startsWith('test/') || !to?.startsWith('test/'))
      throw new Error(`give from:to, both under test/ (got ${a})`);
    return { from: from.replace(/\/$/, ''), to: to.replace(/\/$/, '') };
  });
if (pairs.length === 0) throw new Error('nothing to move: give from:to pairs');

const git = (...a) => execFileSync('git', a, { cwd: ROOT, encoding: 'utf8' });
const tracked = git('ls-files', '-z', '--', 'test').split('\0').filter(Boolean);

/** Each moved file, old path -> new path (a file pair wins over the folder holding it). */
const moves = new Map();
for (const file of tracked) {
  let best;
  for (const p of pairs)
    if ((file === p.from || file.startsWith(`${p.from}/`)) && (!best || p.from.length > best.from.length)) best = p;
  if (best) moves.set(file, best.to + file.slice(best.from.length));
}
for (const p of pairs)
  if (![...moves.keys()].some((f) => f === p.from || f.startsWith(`${p.from}/`)))
    throw new Error(`${p.from} holds no tracked file`);
const taken = new Set(tracked.filter((f) => !moves.has(f)));
for (const to of moves.values()) {
  if (taken.has(to)) throw new Error(`${to} exists already`);
  taken.add(to);
}
const newPathOf = (path) => moves.get(path) ?? path;
/** A folder all of whose files moved to one new folder: its references move with it. */
const movedFolders = new Map(pairs.filter((p) => !moves.has(p.from)).map((p) => [p.from, p.to]));

const exists = (path) => existsSync(join(ROOT, path));
const isDir = (path) => exists(path) && statSync(join(ROOT, path)).isDirectory();

/** Where a relative literal written in `file` leads after the moves, or undefined when it names nothing. */
function rewrite(file, spec) {
  const from = posix.dirname(file);
  const target = posix.normalize(posix.join(from, spec));
  if (target.startsWith('..')) return undefined;
  // An import names a .ts by its .js; a folder is kept as a folder.
  const asFile = [target, target.replace(/\.js$/, '.ts'), target.replace(/\.mjs$/, '.mts')].find(
    (t) => exists(t) && !isDir(t),
  );
  let moved;
  if (asFile) {
    const newFile = newPathOf(asFile);
    moved = asFile === target ? newFile : newFile.replace(/\.ts$/, '.js').replace(/\.mts$/, '.mjs');
  } else if (isDir(target)) {
    const folder = [...movedFolders].find(([old]) => target === old || target.startsWith(`${old}/`));
    moved = folder ? folder[1] + target.slice(folder[0].length) : target;
  } else return undefined;
  const newFrom = posix.dirname(newPathOf(file));
  let out = posix.relative(newFrom, moved) || '.';
  if (!out.startsWith('.')) out = `./${out}`;
  if (spec.endsWith('/') && !out.endsWith('/')) out += '/';
  return out;
}

const CODE = /\.(ts|mts|cts|js|mjs|cjs)$/;
const LITERAL = /(['"`])(\.\.?\/[^'"`\n$]*?)\1/g;
const edits = new Map();
for (const file of tracked.filter((f) => CODE.test(f))) {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const next = text.replace(LITERAL, (whole, quote, spec) => {
    const out = rewrite(file, spec);
    return out === undefined ? whole : `${quote}${out}${quote}`;
  });
  if (next !== text) edits.set(file, next);
}

// Repository paths (test/...) in prose, scripts and tests: longest first, whole path segments only.
const renames = [...[...moves].filter(([a, b]) => a !== b), ...movedFolders].sort((a, b) => b[0].length - a[0].length);
const pathPattern = new RegExp(
  `(?<![\\w./-])(${renames.map(([a]) => a.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})(?![\\w-]|\\.[\\w])`,
  'g',
);
const renamed = new Map(renames);
const proseFilesOf = (...where) =>
  git('ls-files', '-z', '--', ...where)
    .split('\0')
    .filter((f) => f && /\.(md|mjs|js|ts|json|sh)$/.test(f) && f !== 'scripts/move-tests.mjs');
// docs/api.md is rendered from src/daemon/openapi/reference.ts, header included: it changes with src/.
const GENERATED_FROM_SRC = new Set(['docs/api.md']);
const proseFiles = proseFilesOf('docs', 'scripts', 'bench', 'README.md', 'CHANGELOG.md', 'test').filter(
  (f) => !GENERATED_FROM_SRC.has(f),
);
for (const file of proseFiles) {
  const text = edits.get(file) ?? readFileSync(join(ROOT, file), 'utf8');
  const next = text.replace(pathPattern, (path) => renamed.get(path));
  if (next !== text) edits.set(file, next);
}

if (dryRun) {
  for (const [a, b] of moves) if (a !== b) console.log(`${a} -> ${b}`);
  for (const file of edits.keys()) console.log(`edit ${file}`);
} else {
  for (const [a, b] of moves) {
    if (a === b) continue;
    mkdirSync(dirname(join(ROOT, b)), { recursive: true });
    git('mv', a, b);
  }
  for (const [file, text] of edits) writeFileSync(join(ROOT, newPathOf(file)), text);
  console.log(`moved ${[...moves].filter(([a, b]) => a !== b).length} files, edited ${edits.size}`);
}

// What src/ says of the moved tests, for whoever edits src/ next.
const srcMentions = proseFilesOf('src', ...GENERATED_FROM_SRC).flatMap((file) =>
  readFileSync(join(ROOT, file), 'utf8')
    .split('\n')
    .flatMap((line, i) => (line.match(pathPattern) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
);
if (srcMentions.length > 0)
  console.log(`\nsrc/ still names the old paths (not edited here):\n${srcMentions.join('\n')}`);
