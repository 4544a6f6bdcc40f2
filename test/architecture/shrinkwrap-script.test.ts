import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { shrinkwrapFromLock } from '../../scripts/shrinkwrap.mjs';
import { PROJECT_ROOT } from '../helpers/paths.js';

/** scripts/shrinkwrap.mjs: the npm-shrinkwrap.json `npm pack` ships, made from package-lock.json. */
interface LockEntry {
  version?: string;
  dev?: boolean;
  optional?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}
interface Lock {
  lockfileVersion: number;
  packages: Record<string, LockEntry>;
}

const lock = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package-lock.json'), 'utf8')) as Lock;
const shrinkwrap = shrinkwrapFromLock(lock) as Lock;

/** Where Node (and npm) finds `name` for the package at `location`: its own node_modules, then each one above. */
function resolveIn(packages: Record<string, LockEntry>, location: string, name: string): string | undefined {
  for (let at = location; ; at = at.replace(/\/?node_modules\/(?:@[^/]+\/)?[^/]+$/, '')) {
    const candidate = at ? `${at}/node_modules/${name}` : `node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (!at) return undefined;
  }
}

describe('shrinkwrapFromLock', () => {
  it('keeps the lock as it is but for the packages only devDependencies need', () => {
    expect(shrinkwrap.lockfileVersion).toBe(lock.lockfileVersion);
    expect(shrinkwrap.packages['']).toEqual(lock.packages['']);
    const kept = Object.entries(lock.packages).filter(([, entry]) => !entry.dev);
    expect(Object.entries(shrinkwrap.packages)).toEqual(kept);
    expect(Object.keys(shrinkwrap.packages)).not.toContain('node_modules/vitest');
    expect(Object.keys(shrinkwrap.packages)).toContain('node_modules/better-sqlite3');
  });

  it('pins cookie where the lock does (the overrides a global install would not apply)', () => {
    const cookies = (packages: Record<string, LockEntry>) =>
      Object.fromEntries(
        Object.entries(packages)
          .filter(([location]) => location.endsWith('node_modules/cookie'))
          .map(([location, entry]) => [location, entry.version]),
      );
    expect(cookies(shrinkwrap.packages)).toEqual(cookies(lock.packages));
    expect(cookies(shrinkwrap.packages)['node_modules/@fastify/cookie/node_modules/cookie']).toBe('1.1.1');
    expect(cookies(shrinkwrap.packages)['node_modules/light-my-request/node_modules/cookie']).toBe('1.1.1');
  });

  it('every dependency of what it keeps resolves to a package it keeps', () => {
    const unresolved: string[] = [];
    for (const [location, entry] of Object.entries(shrinkwrap.packages)) {
      const optional = new Set([
        ...Object.keys(entry.optionalDependencies ?? {}),
        ...Object.entries(entry.peerDependenciesMeta ?? {})
          .filter(([, meta]) => meta.optional)
          .map(([name]) => name),
      ]);
      const names = [
        ...Object.keys(entry.dependencies ?? {}),
        ...Object.keys(entry.optionalDependencies ?? {}),
        ...Object.keys(entry.peerDependencies ?? {}),
      ];
      for (const name of names) {
        // An optional one may be missing from the lock too (another platform's package).
        if (resolveIn(shrinkwrap.packages, location, name) === undefined && !optional.has(name))
          unresolved.push(`${location || '(root)'} -> ${name}`);
      }
    }
    expect(unresolved).toEqual([]);
  });

  it('refuses a lock without the packages map of lockfileVersion 2 and later', () => {
    expect(() => shrinkwrapFromLock({ lockfileVersion: 1, dependencies: {} })).toThrow(/lockfileVersion 2 or later/);
  });
});
