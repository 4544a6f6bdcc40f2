import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Three kinds of test file, told apart by their name (docs/contributing.md "Tests"), each a
 * project: `npm run test:unit`, `test:app`, `test:process`; `npm test` runs them all.
 * - unit    `*.test.ts`          pure functions and in-memory work;
 * - app     `*.app.test.ts`      in this process: the app through inject(), SQLite files in
 *                                temporary folders, loopback servers, worker threads;
 * - process `*.process.test.ts`  spawns the CLI, a daemon or another program.
 * test/setup/unit.ts and app.ts refuse what a kind may not do, naming the kind it is.
 */
/**
 * What every project runs with: the sandbox and the API contract check, the timeouts, forks, and
 * no isolation: the files a fork runs share its loaded modules, so each file does not load the
 * sources again (docs/contributing.md "Tests" says what a test must leave as it found it; the
 * figures are in docs/performance.md "Test suite").
 */
const shared = {
  globalSetup: ['test/setup/sandboxes.ts'],
  setupFiles: ['test/setup/sandbox.ts', 'test/setup/api-contract.ts'],
  testTimeout: 30_000,
  hookTimeout: 60_000,
  pool: 'forks',
  isolate: false,
} as const;

const forks = Math.max(2, availableParallelism());

export default defineConfig({
  test: {
    // Vitest's default is one fork less than the cores: a single fork on a 2-core machine (CI's),
    // where most test files wait on the CLIs and daemons they spawn. One fork per core; the projects
    // run one after another on them.
    maxWorkers: forks,
    // As many kept as started: a fork above the minimum is ended the moment it idles, which with
    // reused forks (below) once raced the next file handed to it and failed the run (an unhandled
    // "Terminating worker thread", at 3 forks).
    minWorkers: forks,
    // The pool's half of `isolate: false` (the projects' half is in `shared`): keep a fork for the
    // next file rather than start a new one for each.
    isolate: false,
    reporters: ['default'],
    projects: [
      {
        test: {
          ...shared,
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/**/*.app.test.ts', 'test/**/*.process.test.ts'],
          setupFiles: [...shared.setupFiles, 'test/setup/unit.ts'],
        },
      },
      {
        test: {
          ...shared,
          name: 'app',
          include: ['test/**/*.app.test.ts'],
          // The run's throw-away PostgreSQL, started at the first file's request (controlStore tests).
          globalSetup: [...shared.globalSetup, 'test/setup/postgres.ts'],
          setupFiles: [...shared.setupFiles, 'test/setup/app.ts'],
        },
      },
      {
        // The control plane's conformance run: its app tests again, every app's control tables on
        // a fresh PostgreSQL database (controlStore = postgres://...; docs/scaling.md).
        test: {
          ...shared,
          name: 'app-postgres',
          include: ['test/control/**/*.app.test.ts'],
          provide: { controlStoreUnderTest: 'postgres' },
          globalSetup: [...shared.globalSetup, 'test/setup/postgres.ts'],
          setupFiles: [...shared.setupFiles, 'test/setup/app.ts'],
        },
      },
      {
        test: {
          ...shared,
          name: 'process',
          include: ['test/**/*.process.test.ts'],
          globalSetup: [...shared.globalSetup, 'test/setup/postgres.ts'],
          setupFiles: [...shared.setupFiles],
          // A test here starts programs, each a second or more of CPU: on a loaded machine a
          // dozen CLI calls pass 30 s, which is not a failure of what the test checks.
          testTimeout: 120_000,
        },
      },
    ],
  },
});
