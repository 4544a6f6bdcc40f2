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

/** The arguments and the environment of a run, alike for the binary and the run in process. */
export function cliInvocation(args: string[], options: CliRunOptions): { args: string[]; env: Record<string, string> } {
  return {
    args: options.dataDir ? ['--data-dir', options.dataDir, ...args] : args,
    env: { NODECTL_LOG_LEVEL: 'warn', ...options.env },
  };
}

/**
 * Runs the CLI's sources in this process (runCli with an io of its own: src/cli/io.ts), as
 * test/helpers/cli.ts runs the built binary: the same environment on top of this process's, the
 * same output with its last newline taken off (as execa does). For the tests of what commands
 * print and exit with, without a start of the binary each (docs/performance.md "Test suite").
 * The binary's own start and its io are tested with the binary (test/cli/http-commands.process.test.ts
 * compares the two).
 */
export async function runNodectlInProcess(args: string[], options: CliRunOptions = {}): Promise<CliRun> {
  if (options.cwd !== undefined && options.cwd !== process.cwd())
    throw new Error(
      "runNodectlInProcess runs in the test file's folder: run the binary (test/helpers/cli.ts) for another cwd",
    );
  const run = cliInvocation(args, options);
  const stdout = collector();
  const stderr = collector();
  const io: CliIo = {
    stdout,
    stderr,
    stdin: Readable.from(options.input === undefined ? [] : [Buffer.from(options.input)]),
    env: { ...process.env, ...run.env },
    cwd: process.cwd(),
    script: NODECTL_BIN,
  };
  const exitCode = await runCli(['node', NODECTL_BIN, ...run.args], io);
  return cliRun(exitCode, stdout.text(), stderr.text());
}

function collector(): CliStream & { text(): string } {
  let text = '';
  return {
    write: (chunk: string) => void (text += chunk),
    text: () => text.replace(/\r?\n$/, ''),
  };
}
