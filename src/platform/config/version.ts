import { existsSync, readFileSync } from 'node:fs';

const PACKAGE_NAME = '@nodectl/cli';

/**
 * The package's own folder and package.json, the first one of this name above this module: the
 * sources, dist/ and the bundle's files (scripts/build.mjs) sit at other depths, so no fixed path.
 */
function findPackage(): { root: URL; version: string } {
  for (let dir = new URL('.', import.meta.url); ;) {
    const candidate = new URL('package.json', dir);
    if (existsSync(candidate)) {
      const manifest = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string; version?: string };
      if (manifest.name === PACKAGE_NAME && typeof manifest.version === 'string')
        return { root: dir, version: manifest.version };
    }
    const parent = new URL('..', dir);
    if (parent.href === dir.href) throw new Error(`no package.json of ${PACKAGE_NAME} above ${import.meta.url}`);
    dir = parent;
  }
}

const found = findPackage();

export const NODECTL_VERSION: string = found.version;

/** The installed package's folder (a file: URL ending in /): the checkout, or node_modules/@nodectl/cli. */
export const PACKAGE_ROOT: URL = found.root;
