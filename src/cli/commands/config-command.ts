import type { Command } from 'commander';
import { describeConfig } from '../../platform/config/index.js';
import { commandContext } from '../context.js';
import { formatTable } from '../output.js';

export function registerConfigCommand(program: Command): void {
  program
    .command('config')
    .description('print the effective settings (secrets masked) and where each came from')
    .action((_opts, command: Command) => {
      const { config, out } = commandContext(command);
      const rows = describeConfig(config);
      out.result({ file: config.file, settings: rows }, () =>
        [
          `config file: ${config.file ?? '(none)'}`,
          formatTable(
            ['SETTING', 'VALUE', 'SOURCE', 'ENV'],
            rows.map((r) => [r.name, r.value === null ? '(unset)' : JSON.stringify(r.value), r.source, r.env]),
          ),
        ].join('\n'),
      );
    });
}
