import { execa } from 'execa';
import { NODECTL_BIN } from './paths.js';

export interface CliRun {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (for --json runs). */
  json<T = any>(): T;
}

/** Runs the real built binary, like a user would. Never throws on a non-zero exit. */
export async function runNodectl(
  args: string[],
  options: { dataDir?: string; env?: Record<string, string>; input?: string; cwd?: string; timeoutMs?: number } = {},
): Promise<CliRun> {
  const fullArgs = options.dataDir ? ['--data-dir', options.dataDir, ...args] : args;
  const result = await execa('node', [NODECTL_BIN, ...fullArgs], {
    reject: false,
    env: { NODECTL_LOG_LEVEL: 'warn', ...options.env },
    input: options.input,
    cwd: options.cwd,
    timeout: options.timeoutMs ?? 60_000,
  });
  return {
    exitCode: result.exitCode ?? -1,
    stdout: String(result.stdout),
    stderr: String(result.stderr),
    json() {
      return JSON.parse(String(result.stdout));
    },
  };
}
