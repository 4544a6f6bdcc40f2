import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup/sandbox.ts', 'test/setup/api-contract.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default is one fork less than the cores: a single fork on a 2-core machine (CI's),
    // where most test files wait on the CLIs and daemons they spawn. One fork per core.
    maxWorkers: Math.max(2, availableParallelism()),
    minWorkers: 1,
    reporters: ['default'],
  },
});
