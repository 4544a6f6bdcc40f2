import { Command, CommanderError } from 'commander';
import { ConfigError, NODECTL_VERSION } from '../platform/config/index.js';
import { AppError, storageUnavailableError } from '../platform/errors/index.js';
import { SchemaTooNewError } from '../platform/storage/index.js';
import { errorEnvelope, formatFailureText, type CliFailure } from './error-output.js';
import { CliError, EXIT, UsageError } from './errors.js';
import { cliIo, processIo, withCliIo, type CliIo } from './io.js';
import { COMMANDS } from './registry.js';

export function buildProgram(): Command {
  const program = new Command('nodectl')
    .description("Turn a website's content into a knowledge node that AI consumers can trust.")
    .version(NODECTL_VERSION, '-V, --version', 'print the nodectl version')
    .option('--data-dir <dir>', 'data directory (env NODECTL_DATA_DIR, default ./.nodectl)')
    .option('--config <file>', 'JSON config file (env NODECTL_CONFIG, default <data-dir>/config.json)')
    .option('--json', 'print machine-readable JSON instead of text')
    .showHelpAfterError('(run with --help for usage)')
    .showSuggestionAfterError(true)
    .exitOverride();
  program.configureHelp({ sortSubcommands: true });
  // Commander's help, version and usage errors go where the run's io says (runCli), read at each write.
  const output = {
    writeOut: (text: string) => void cliIo().stdout.write(text),
    writeErr: (text: string) => void cliIo().stderr.write(text),
    getOutHelpWidth: () => cliIo().stdout.columns ?? 80,
    getErrHelpWidth: () => cliIo().stderr.columns ?? 80,
  };
  program.configureOutput(output);
  for (const register of COMMANDS) register(program);
  // Every subcommand shares the parent's error handling.
  const adopt = (cmd: Command) => {
    cmd.exitOverride();
    cmd.configureOutput(output);
    cmd.showHelpAfterError('(run with --help for usage)');
    cmd.commands.forEach(adopt);
  };
  program.commands.forEach(adopt);
  return program;
}

/**
 * Runs the CLI and returns the exit code; one place decides how every failure is reported. `io`
 * is where it reads and writes (the process's by default; src/cli/io.ts).
 */
export function runCli(argv: string[], io: CliIo = processIo()): Promise<number> {
  return withCliIo(io, () => runProgram(argv, io));
}

async function runProgram(argv: string[], io: CliIo): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return io.exitCode ?? EXIT.ok;
  } catch (error) {
    const json = Boolean((program.opts() as { json?: boolean }).json) || jsonRequested(argv.slice(2));
    const failure = describeFailure(error);
    if (failure === undefined) return EXIT.ok;
    // The text always goes to stderr for the person watching; under --json the envelope also goes
    // to stdout, where a script already reads the result (docs/decisions.md).
    if (!failure.printed) io.stderr.write(formatFailureText(failure));
    if (json) io.stdout.write(JSON.stringify(errorEnvelope(failure)) + '\n');
    return failure.exitCode;
  }
}

/** --json anywhere before a `--`: the flag counts even when commander stopped before reading it. */
function jsonRequested(args: string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).includes('--json');
}

/** Every failure as code, message, details and exit code; undefined when it is not one (help, version). */
function describeFailure(error: unknown): CliFailure | undefined {
  const usage = (message: string): CliFailure => ({
    code: 'cli.usage',
    message,
    details: {},
    retryable: false,
    exitCode: EXIT.usage,
    showCode: false,
  });
  if (error instanceof CommanderError) {
    if (
      error.code === 'commander.helpDisplayed' ||
      error.code === 'commander.version' ||
      error.code === 'commander.help' ||
      error.exitCode === 0
    )
      return undefined;
    // Commander already printed the message (and help for a bad call) on stderr.
    return { ...usage(error.message.replace(/^error: /, '')), printed: true };
  }
  if (error instanceof UsageError || error instanceof ConfigError) return usage(error.message);
  if (error instanceof CliError)
    return {
      code: error.code ?? 'cli.failure',
      message: error.message,
      details: error.details,
      retryable: error.retryable,
      exitCode: error.exitCode,
      showCode: error.code !== undefined,
    };
  // A full or failing disk is the user's to mend: one line with the code, like any AppError, no stack.
  const appError = error instanceof AppError ? error : storageUnavailableError(error);
  if (appError)
    return {
      code: appError.code,
      message: appError.message,
      details: appError.details ?? {},
      retryable: appError.retryable,
      exitCode: EXIT.failure,
      showCode: true,
    };
  if (error instanceof SchemaTooNewError)
    return {
      code: 'cli.failure',
      message: error.message,
      details: {},
      retryable: false,
      exitCode: EXIT.failure,
      showCode: false,
    };
  const stack = error instanceof Error ? (error.stack ?? error.message) : String(error);
  return {
    code: 'cli.internal',
    message: `internal error (this is a bug, please report it with the lines below)\n${stack}`,
    details: {},
    retryable: false,
    exitCode: EXIT.failure,
    showCode: false,
  };
}

const isEntryPoint = process.argv[1] !== undefined && /nodectl(\.js)?$|cli[\\/]main\.js$/.test(process.argv[1]);
if (isEntryPoint) {
  runCli(process.argv).then((code) => {
    process.exitCode = code;
  });
}
