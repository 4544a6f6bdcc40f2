import type { Command } from 'commander';
import { addApiOptions, apiRequested, type ApiFlags } from '../api-connection.js';
import { commandContext } from '../context.js';
import { CliError, EXIT, UsageError } from '../errors.js';

const rolledBack = (result: { versionUlid: string; versionLabel: string; previousVersion: string | null }) =>
  `latest now serves ${result.versionUlid} (${result.versionLabel}); it replaced ${result.previousVersion ?? '(nothing live)'}`;

/**
 * `nodectl rollback --website <id> --to <ulid>`: flip latest/ back
 * to a stored version; over HTTP POST /v1/websites/:id/rollback.
 */
export function registerRollbackCommand(program: Command): void {
  addApiOptions(
    program
      .command('rollback')
      .description(
        'point latest/ at an earlier published version (same atomic flip as publish; nothing is uploaded), here or on a daemon (--url)',
      ),
  )
    .option('--website <id>', 'the website')
    .option('--to <ulid>', 'the version to serve (see `nodectl versions`)')
    .option('--target <fs|s3>', 'publish target (env NODECTL_PUBLISH_TARGET, default fs)')
    .addHelpText(
      'after',
      '\nExit codes: 0 rolled back, 1 failed (unknown version, a purged version (publish.version_purged), lock held), 2 bad usage; the same over HTTP.',
    )
    .action(async (opts: ApiFlags & { website?: string; to?: string; target?: string }, command: Command) => {
      if (!opts.website) throw new UsageError('--website <id> is required');
      if (!opts.to || !/^[0-9A-HJKMNP-TV-Z]{26}$/.test(opts.to))
        throw new UsageError('--to <ulid> is required: a node_version from `nodectl versions --website <id>`');
      if (opts.target !== undefined && opts.target !== 'fs' && opts.target !== 's3')
        throw new UsageError(`--target must be fs or s3 (got ${opts.target})`);
      const [websiteId, to] = [opts.website, opts.to];
      if (apiRequested(opts)) {
        if (opts.target !== undefined)
          throw new UsageError('--target is local only: over HTTP the daemon rolls back its own target');
        const ctx = commandContext(command);
        const { connectApi, reportApiFailure } = await import('../api-connection.js');
        const api = await connectApi(opts);
        const result = await api.client.publish.rollback(websiteId, { version: to }).catch(reportApiFailure);
        return ctx.out.result(result, () => rolledBack(result));
      }
      const ctx = commandContext(command, opts.target ? { publishTarget: opts.target } : {});
      const { rollbackNode, createTargetFromSettings } = await import('../../output/publish/index.js');
      const { openControlDb } = await import('../../platform/storage/index.js');
      const { dataDirLayout } = await import('../../platform/storage/index.js');
      const { isAppError } = await import('../../platform/errors/index.js');
      const controlDb = openControlDb(dataDirLayout(ctx.config.settings.dataDir), ctx.config.settings.controlStore);
      const target = await createTargetFromSettings(ctx.config.settings);
      try {
        const result = await rollbackNode({ target, controlDb, websiteId, to });
        ctx.out.result(result, () => rolledBack(result));
      } catch (error) {
        if (isAppError(error))
          throw new CliError(error.message, EXIT.failure, error.code, {
            details: error.details,
            retryable: error.retryable,
          });
        throw error;
      } finally {
        await target.close();
        controlDb.close();
      }
    });
}
