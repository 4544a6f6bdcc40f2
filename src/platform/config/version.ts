import { existsSync, readFileSync } from 'node:fs';

const PACKAGE_NAME = '@nodectl/cli';

/**
 * The version in the package's own package.json, the first one above this module: dist/ and the
 * sources sit at other depths than the bundle's files (scripts/build.mjs), so no fixed path.
 */
function readPackageVersion(): string {
  for (let dir = new URL('.', import.meta.url); ;) {
    const candidate = new URL('package.json', dir);
    if (existsSync(candidate)) {
      const manifest = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string; version?: string };
      if (manifest.name === PACKAGE_NAME && typeof manifest.version === 'string') return manifest.version;
    }
    const parent = new URL('..', dir);
    if (parent.href === dir.href) throw new Error(`no package.json of ${PACKAGE_NAME} above ${import.meta.url}`);
    dir = parent;
  }
}

export const NODECTL_VERSION: string = readPackageVersion();
