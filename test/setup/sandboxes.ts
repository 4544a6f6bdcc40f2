import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    sandboxes: string;
  }
}

/**
 * Global setup (the main process, once per project): the folder under which each test file's
 * sandbox is made (test/setup/sandbox.ts), removed with all of them when the run ends, even when
 * a file's own hooks did not run (`vitest list`, a killed fork).
 */
export default function setup(project: TestProject): () => void {
  const root = mkdtempSync(join(tmpdir(), `nodectl-test-${project.name || 'run'}-`));
  project.provide('sandboxes', root);
  return () => rmSync(root, { recursive: true, force: true });
}
