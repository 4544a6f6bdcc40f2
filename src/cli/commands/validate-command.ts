import type { Command } from 'commander';
import { commandContext } from '../context.js';
import { EXIT } from '../errors.js';
import { cliIo } from '../io.js';

/** `nodectl validate <dir|url>`: a consumer-side check of any node. */
export function registerValidateCommand(program: Command): void {
  program
    .command('validate <node>')
    .description(
      'check a node directory or URL as a consumer would: checksums, schemas, references, uuid leaks, export rules',
    )
    .addHelpText('after', '\nExit codes: 0 valid (warnings allowed), 1 invalid, 2 bad usage.')
    .action(async (node: string, _opts: unknown, command: Command) => {
      const ctx = commandContext(command);
      const { validateNode, formatValidationReport } = await import('../../compiler/index.js');
      const report = await validateNode(node);
      ctx.out.result(report, () => formatValidationReport(report));
      if (!report.ok) cliIo().exitCode = EXIT.failure;
    });
}
