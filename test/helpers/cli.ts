import { execa } from 'execa';
import { cliInvocation, cliRun, type CliRun, type CliRunOptions } from './cli-in-process.js';
import { NODECTL_BIN } from './paths.js';

export type { CliRun, CliRunOptions };

/** Runs the real built binary, like a user would. Never throws on a non-zero exit. */
export async function runNodectl(args: string[], options: CliRunOptions = {}): Promise<CliRun> {
  const run = cliInvocation(args, options);
  const result = await execa('node', [NODECTL_BIN, ...run.args], {
    reject: false,
    env: run.env,
    input: options.input,
    cwd: options.cwd,
    timeout: options.timeoutMs ?? 60_000,
  });
  return cliRun(result.exitCode ?? -1, String(result.stdout), String(result.stderr));
}
