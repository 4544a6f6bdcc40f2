import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';

export const PROJECT_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const NODECTL_BIN = join(PROJECT_ROOT, 'bin', 'nodectl');

/** A fresh temporary folder; call the returned cleanup in afterAll/afterEach. */
export function makeTempDir(prefix = 'nodectl-test-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
