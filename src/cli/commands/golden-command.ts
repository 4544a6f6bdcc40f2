import type { Command } from 'commander';
import { commandContext } from '../context.js';
import { EXIT } from '../errors.js';
import { cliIo } from '../io.js';

interface GoldenFlags {
  fixtures: string;
  golden: string;
}

/** `nodectl golden check|update`: every fixture compiled and compared byte for byte with golden/. */
export function registerGoldenCommands(program: Command): void {
  const golden = program.command('golden').description('compare compiled fixtures with the committed golden nodes');
  golden
    .command('check [fixture...]')
    .description(
      'compile every fixture (or the named ones) and compare with golden/ byte for byte; exit 1 on a difference',
    )
    .option('--fixtures <dir>', 'fixtures directory', 'fixtures')
    .option('--golden <dir>', 'golden directory', 'golden')
    .action(async (names: string[], opts: GoldenFlags, command: Command) => {
      const ctx = commandContext(command);
      const { checkGolden, formatGoldenReport } = await import('../../compiler/index.js');
      const report = checkGolden(opts.fixtures, opts.golden, names);
      ctx.out.result(report, () => formatGoldenReport(report));
      if (!report.ok) cliIo().exitCode = EXIT.failure;
    });
  golden
    .command('update [fixture...]')
    .description('recompile every fixture (or the named ones) into golden/')
    .option('--fixtures <dir>', 'fixtures directory', 'fixtures')
    .option('--golden <dir>', 'golden directory', 'golden')
    .action(async (names: string[], opts: GoldenFlags, command: Command) => {
      const ctx = commandContext(command);
      const { updateGolden } = await import('../../compiler/index.js');
      const updated = updateGolden(opts.fixtures, opts.golden, names);
      ctx.out.result(
        { updated },
        () =>
          updated.map((u) => `updated ${opts.golden}/${u.name} (${u.files} files)`).join('\n') || 'no fixtures found',
      );
    });
}
