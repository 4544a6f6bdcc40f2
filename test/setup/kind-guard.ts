import childProcess from 'node:child_process';
import fs from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import net from 'node:net';
import workerThreads from 'node:worker_threads';

/**
 * What a test file of a kind may not do, refused at once with the name it should have
 * (docs/contributing.md "Tests"): a `*.test.ts` (unit) starts no process, no thread, makes no
 * temporary folder and listens on no socket; a `*.app.test.ts` starts no process. The builtins are
 * replaced for the whole file (the sources and packages it loads included: syncBuiltinESMExports
 * carries the change to their `import { spawn } from 'node:child_process'`).
 */
export function refuse(what: 'process' | 'thread' | 'temporary folder' | 'listening socket', rename: string): void {
  // A function, not an arrow: `new Worker(...)` must reach the throw too.
  const fail = (name: string) =>
    function refused(): never {
      throw new Error(
        `this test file ${what === 'process' ? 'starts a process' : what === 'thread' ? 'starts a worker thread' : what === 'temporary folder' ? 'makes a temporary folder' : 'listens on a socket'} (${name}): name it ${rename} (docs/contributing.md "Tests")`,
      );
    };
  const replace = (target: object, names: string[]) => {
    for (const name of names)
      Object.defineProperty(target, name, { value: fail(name), configurable: true, writable: true });
  };
  if (what === 'process')
    replace(childProcess, ['spawn', 'spawnSync', 'fork', 'exec', 'execSync', 'execFile', 'execFileSync']);
  if (what === 'thread') replace(workerThreads, ['Worker']);
  if (what === 'temporary folder') {
    replace(fs, ['mkdtemp', 'mkdtempSync']);
    replace(fs.promises, ['mkdtemp']);
    replace(createRequire(import.meta.url)('node:fs/promises'), ['mkdtemp']);
  }
  if (what === 'listening socket') replace(net.Server.prototype, ['listen']);
  syncBuiltinESMExports();
}
