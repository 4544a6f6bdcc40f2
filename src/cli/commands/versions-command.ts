import type { Command } from 'commander';
import type { PublishedVersionView } from '../../output/publish/index.js';
import { addApiOptions, apiRequested, type ApiFlags } from '../api-connection.js';
import { commandContext } from '../context.js';
import { UsageError } from '../errors.js';
import { formatTable } from '../output.js';

/** The versions table, or the line saying there is none (`where`: the target, or the daemon's URL). */
function formatVersions(versions: readonly PublishedVersionView[], websiteId: string, where: string): string {
  if (versions.length === 0) return `no published versions of ${websiteId} in ${where}`;
  return formatTable(
    ['', 'VERSION', 'LABEL', 'GENERATED', 'PURGED'],
    versions.map((v) => [
      v.live ? '*' : '',
      v.node_version,
      v.node_version_label ?? '',
      v.generated_at,
      v.purged ? 'purged' : '',
    ]),
  );
}

/**
 * `nodectl versions --website <id>`: every complete version in the
 * store, newest first; over HTTP GET /v1/websites/:id/versions.
 */
export function registerVersionsCommand(program: Command): void {
  addApiOptions(
    program
      .command('versions')
      .description(
        'list the published versions of a website in the store, newest first (* = live), here or on a daemon (--url)',
      ),
  )
    .option('--website <id>', 'the website')
    .option('--target <fs|s3>', 'publish target (env NODECTL_PUBLISH_TARGET, default fs)')
    .action(async (opts: ApiFlags & { website?: string; target?: string }, command: Command) => {
      if (!opts.website) throw new UsageError('--website <id> is required');
      if (opts.target !== undefined && opts.target !== 'fs' && opts.target !== 's3')
        throw new UsageError(`--target must be fs or s3 (got ${opts.target})`);
      const websiteId = opts.website;
      if (apiRequested(opts)) {
        if (opts.target !== undefined)
          throw new UsageError('--target is local only: over HTTP the daemon lists its own target');
        const ctx = commandContext(command);
        const { connectApi, reportApiFailure } = await import('../api-connection.js');
        const { collectPages } = await import('../../sdk/api/index.js');
        const api = await connectApi(opts);
        const versions = await collectPages((cursor) =>
          api.client.publish.versions(websiteId, { limit: 100, cursor }),
        ).catch(reportApiFailure);
        return ctx.out.result(versions, () => formatVersions(versions, websiteId, api.url));
      }
      const ctx = commandContext(command, opts.target ? { publishTarget: opts.target } : {});
      const { listWebsiteVersions } = await import('../../output/publish/index.js');
      const { createTargetFromSettings } = await import('../../output/publish/index.js');
      const target = await createTargetFromSettings(ctx.config.settings);
      try {
        const versions = await listWebsiteVersions(target, websiteId);
        ctx.out.result(versions, () => formatVersions(versions, websiteId, target.description));
      } finally {
        await target.close();
      }
    });
}
