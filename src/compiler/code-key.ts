import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

/**
 * Names the code that compiles, for a CompileState (CompileOptions.codeKey): the sha256 of every
 * .js and .ts file of the tree this module runs from (dist/ or src/, the console's assets left
 * out), so a state made by other code, whatever file changed, is not used. Read once a process.
 */
export function compilerCodeKey(here: string = import.meta.url): string {
  if (cached !== undefined) return cached;
  const root = dirname(dirname(fileURLToPath(here)));
  const hash = createHash('sha256');
  const walk = (dir: string, rel: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'console' && !entry.name.startsWith('.')) walk(path, `${rel}${entry.name}/`);
      } else if (/\.(js|ts)$/.test(entry.name)) {
        hash.update(`${rel}${entry.name}\0`).update(readFileSync(path)).update('\0');
      }
    }
  };
  walk(root, '');
  return (cached = hash.digest('hex'));
}
