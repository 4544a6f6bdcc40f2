import { Command, CommanderError } from 'commander';
import { createRequire } from 'node:module';
import { ConfigError } from '../platform/config/index.js';
import { AppError, storageUnavailableError } from '../platform/errors/index.js';
import { SchemaTooNewError } from '../platform/storage/index.js';
import { CliError, EXIT, UsageError } from './errors.js';
import { COMMANDS } from './registry.js';

const require = createRequire(import.meta.url);
const { version } = require('../../package.json') as { version: string };

export function buildProgram(): Command {
  const program = new Command('nodectl')
    .description("Turn a website's content into a knowledge node that AI consumers can trust.")
    .version(version, '-V, --version', 'print the nodectl version')
    .option('--data-dir <dir>', 'data directory (env NODECTL_DATA_DIR, default ./.nodectl)')
    .option('--config <file>', 'JSON config file (env NODECTL_CONFIG, default <data-dir>/config.json)')
    .option('--json', 'print machine-readable JSON instead of text')
    .showHelpAfterError('(run with --help for usage)')
    .showSuggestionAfterError(true)
    .exitOverride();
  program.configureHelp({ sortSubcommands: true });
  for (const register of COMMANDS) register(program);
  // Every subcommand shares the parent's error handling.
  const adopt = (cmd: Command) => {
    cmd.exitOverride();
    cmd.showHelpAfterError('(run with --help for usage)');
    cmd.commands.forEach(adopt);
  };
  program.commands.forEach(adopt);
  return program;
}

/** Runs the CLI and returns the exit code; one place decides how every failure is reported. */
export async function runCli(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  } catch (error) {
    return reportFailure(error);
  }
}

function reportFailure(error: unknown): number {
  if (error instanceof CommanderError) {
    // Commander already printed the message (and help for a bad call).
    if (
      error.code === 'commander.helpDisplayed' ||
      error.code === 'commander.version' ||
      error.code === 'commander.help'
    )
      return EXIT.ok;
    return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  }
  if (error instanceof UsageError || error instanceof ConfigError) {
    process.stderr.write(`nodectl: ${error.message}\n`);
    return EXIT.usage;
  }
  if (error instanceof CliError) {
    process.stderr.write(`nodectl: ${error.code ? `[${error.code}] ` : ''}${error.message}\n`);
    return error.exitCode;
  }
  // A full or failing disk is the user's to mend: one line with the code, like any AppError, no stack.
  const appError = error instanceof AppError ? error : storageUnavailableError(error);
  if (appError) {
    process.stderr.write(`nodectl: [${appError.code}] ${appError.message}\n`);
    return EXIT.failure;
  }
  if (error instanceof SchemaTooNewError) {
    process.stderr.write(`nodectl: ${error.message}\n`);
    return EXIT.failure;
  }
  const stack = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`nodectl: internal error (this is a bug, please report it with the lines below)\n${stack}\n`);
  return EXIT.failure;
}

const isEntryPoint = process.argv[1] !== undefined && /nodectl(\.js)?$|cli[\\/]main\.js$/.test(process.argv[1]);
if (isEntryPoint) {
  runCli(process.argv).then((code) => {
    process.exitCode = code;
  });
}
