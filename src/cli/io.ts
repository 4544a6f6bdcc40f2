import { AsyncLocalStorage } from 'node:async_hooks';

/** Where a command writes: process.stdout and process.stderr, or a caller's buffers. */
export interface CliStream {
  write(text: string): unknown;
  readonly isTTY?: boolean;
  readonly columns?: number;
}

/**
 * What one run of the CLI reads and writes outside its arguments. runCli runs every command
 * inside one (processIo() for the binary), so the CLI can run in a host process too (the tests
 * run most of theirs so) without touching that process's streams, environment or exit code.
 * `serve` and `mcp` own the process they run in (its signals, the MCP stdio transport) and use it.
 */
export interface CliIo {
  readonly stdout: CliStream;
  readonly stderr: CliStream;
  readonly stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  /** The script that runs nodectl (process.argv[1]), for the hints that print how to run it again. */
  readonly script: string | undefined;
  /** The exit code a command asked for without failing (validate's report, a webhook test). */
  exitCode?: number;
}

export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
    script: process.argv[1],
  };
}

const current = new AsyncLocalStorage<CliIo>();

/** Runs `body` with `io` as the io of every command it calls. */
export function withCliIo<T>(io: CliIo, body: () => Promise<T>): Promise<T> {
  return current.run(io, body);
}

/** The io of the run under way; the process's outside runCli (a command's module used directly). */
export function cliIo(): CliIo {
  return current.getStore() ?? processIo();
}
