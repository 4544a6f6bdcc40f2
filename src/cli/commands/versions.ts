import type { Command } from 'commander';
import { commandContext } from '../context.js';
import { UsageError } from '../errors.js';
import { formatTable } from '../output.js';

/** `nodectl versions --website <id>`: every complete version in the store, newest first. */
export function registerVersionsCommand(program: Command): void {
  program
    .command('versions')
    .description('list the published versions of a website in the store, newest first (* = live)')
    .option('--website <id>', 'the website')
    .option('--target <fs|s3>', 'publish target (env NODECTL_PUBLISH_TARGET, default fs)')
    .action(async (opts: { website?: string; target?: string }, command: Command) => {
      if (!opts.website) throw new UsageError('--website <id> is required');
      if (opts.target !== undefined && opts.target !== 'fs' && opts.target !== 's3') throw new UsageError(`--target must be fs or s3 (got ${opts.target})`);
      const ctx = commandContext(command, opts.target ? { publishTarget: opts.target } : {});
      const { listStoredVersions, siteHashOf, createTargetFromSettings } = await import('../../publish/index.js');
      const target = await createTargetFromSettings(ctx.config.settings);
      try {
        const versions = await listStoredVersions(target, siteHashOf(opts.website));
        ctx.out.result(versions, () => (versions.length === 0 ? `no published versions of ${opts.website} in ${target.description}` : formatTable(['', 'VERSION', 'LABEL', 'GENERATED'], versions.map((v) => [v.live ? '*' : '', v.node_version, v.node_version_label ?? '', v.generated_at]))));
      } finally {
        await target.close();
      }
    });
}
