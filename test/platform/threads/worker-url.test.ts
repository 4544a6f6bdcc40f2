import { describe, expect, it } from 'vitest';
import { workerModuleUrl } from '../../../src/platform/threads/worker-url.js';
import { writtenCheckWorkerUrl } from '../../../src/compiler/validate/written-node-thread.js';

describe('workerModuleUrl', () => {
  it("is the worker's module next to its caller in the build", () => {
    expect(
      workerModuleUrl(
        'file:///opt/nodectl/dist/compiler/validate/written-node-thread.js',
        'written-node-worker.js',
        'the check',
      ).href,
    ).toBe('file:///opt/nodectl/dist/compiler/validate/written-node-worker.js');
  });

  it("from the sources, is the build's copy (dist/ for the last src/), which exists after npm run build", () => {
    expect(writtenCheckWorkerUrl().pathname).toMatch(/\/dist\/compiler\/validate\/written-node-worker\.js$/);
    expect(() =>
      workerModuleUrl(
        'file:///work/src/app/src/graph/reader-thread.ts',
        'reader-worker.js',
        'the graph reading thread',
      ),
    ).toThrow(
      'the graph reading thread runs from the build, and /work/src/app/dist/graph/reader-worker.js is missing: run npm run build',
    );
  });
});
