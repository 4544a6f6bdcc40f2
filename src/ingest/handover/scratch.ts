import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { DataDirLayout } from '../../platform/storage/index.js';

/**
 * A private scratch folder for one snapshot or restore, in `<data-dir>/tmp/` (on the data
 * directory's file system, as the publish work folders); `remove` deletes it and what it holds.
 */
export function makeScratch(layout: DataDirLayout, purpose: string): { dir: string; remove: () => void } {
  const parent = join(layout.root, 'tmp');
  mkdirSync(parent, { recursive: true, mode: 0o700 });
  const dir = mkdtempSync(join(parent, `graph-${purpose}-${process.pid}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
