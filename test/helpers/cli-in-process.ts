import { Readable } from 'node:stream';
import { runCli } from '../../src/cli/index.js';
import type { CliIo, CliStream } from '../../src/cli/io.js';
import { NODECTL_BIN } from './paths.js';

export interface CliRun {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (for --json runs). */
  json<T = any>(): T;
}

export interface CliRunOptions {
  dataDir?: string;
  env?: Record<string, string>;
  input?: string;
  cwd?: string;
  timeoutMs?: number;
}

export function cliRun(exitCode: number, stdout: string, stderr: string): CliRun {
  return { exitCode, stdout, stderr, json: () => JSON.parse(stdout) };
}

/**
 * Runs the CLI's sources in this process (runCli with an io of its own: src/cli/io.ts), as
 * test/helpers/cli.ts runs the built binary: the same environment on top of this process's, the
 * same output with its last newline taken off (as execa does). For the tests of what commands
 * print and exit with: a start of the binary costs about 0.2 s of CPU, this a few milliseconds.
 * The binary's own start and its io are tested with the binary (test/cli/http-commands.process.test.ts
 * compares the two).
 */
export async function runNodectlInProcess(args: string[], options: CliRunOptions = {}): Promise<CliRun> {
  if (options.cwd !== undefined && options.cwd !== process.cwd())
    throw new Error(
      "runNodectlInProcess runs in the test file's folder: run the binary (test/helpers/cli.ts) for another cwd",
    );
  const fullArgs = options.dataDir ? ['--data-dir', options.dataDir, ...args] : args;
  const stdout = collector();
  const stderr = collector();
  const io: CliIo = {
    stdout,
    stderr,
    stdin: Readable.from(options.input === undefined ? [] : [Buffer.from(options.input)]),
    env: { ...process.env, NODECTL_LOG_LEVEL: 'warn', ...options.env },
    cwd: process.cwd(),
    script: NODECTL_BIN,
  };
  const exitCode = await runCli(['node', NODECTL_BIN, ...fullArgs], io);
  return cliRun(exitCode, stdout.text(), stderr.text());
}

function collector(): CliStream & { text(): string } {
  let text = '';
  return {
    write: (chunk: string) => void (text += chunk),
    text: () => text.replace(/\r?\n$/, ''),
  };
}
