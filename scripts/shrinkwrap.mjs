#!/usr/bin/env node
// Writes <dir>/npm-shrinkwrap.json from <dir>/package-lock.json for `npm pack` (prepack), and removes
// it again (postpack, --remove). npm ignores package.json's `overrides` and package-lock.json when the
// package is installed globally or as a dependency, but follows a published shrinkwrap: with it a
// user gets the versions CI tested (cookie 1.1.1, not the Node-22-only cookie 2, on Node 20).
// The repository keeps package-lock.json as its lock file; the shrinkwrap exists only inside `npm pack`.
//   node scripts/shrinkwrap.mjs <dir>            write <dir>/npm-shrinkwrap.json
//   node scripts/shrinkwrap.mjs --remove <dir>   remove it
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * The lock as a shrinkwrap: the same lockfileVersion 3 document (npm reads both alike) without the
 * entries marked `dev`. npm 11 skips those in a dependency's shrinkwrap anyway; left out, the file
 * holds only what a user installs (under half the lock), whatever the npm (npm 6 installed them).
 * Entries marked `devOptional` stay: npm installs them without dev too (an optional dependency needs them).
 */
export function shrinkwrapFromLock(lock) {
  if (typeof lock !== 'object' || lock === null || typeof lock.packages !== 'object' || lock.packages === null)
    throw new Error('package-lock.json has no "packages" map (lockfileVersion 2 or later is needed)');
  if (!(lock.lockfileVersion >= 2))
    throw new Error(`package-lock.json has lockfileVersion ${lock.lockfileVersion}; 2 or later is needed`);
  const packages = Object.fromEntries(Object.entries(lock.packages).filter(([, entry]) => entry.dev !== true));
  return { ...lock, packages };
}

function main(args) {
  const remove = args[0] === '--remove';
  const dir = remove ? args[1] : args[0];
  if (!dir || args.length !== (remove ? 2 : 1)) {
    process.stderr.write('usage: node scripts/shrinkwrap.mjs [--remove] <dir>\n');
    return 2;
  }
  const target = join(dir, 'npm-shrinkwrap.json');
  if (remove) {
    rmSync(target, { force: true });
    return 0;
  }
  const lock = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8'));
  writeFileSync(target, `${JSON.stringify(shrinkwrapFromLock(lock), null, 2)}\n`);
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = main(process.argv.slice(2));
}
