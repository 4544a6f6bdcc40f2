import type { Command } from 'commander';
import { commandContext } from '../context.js';
import { EXIT, UsageError } from '../errors.js';
import { cliIo } from '../io.js';

interface PushFlags {
  url?: string;
  token?: string;
  website?: string;
  domain?: string;
  baseUrl?: string;
  watch?: boolean;
}

/** `nodectl push <folder|file.jsonl>`: a file-based connector that pushes signed batches. */
export function registerPushCommand(program: Command): void {
  program
    .command('push <source>')
    .description(
      'push a folder of Markdown, HTML and JSON files (or a .jsonl of items) to a daemon as a signed connector',
    )
    .option('--url <url>', 'daemon API origin (env NODECTL_URL, else url in nodectl.json, else http://127.0.0.1:8787)')
    .option('--token <token>', 'connector token <connectorId>.<secret> (env NODECTL_CONNECTOR_TOKEN)')
    .option('--website <websiteId>', 'website the connector writes to (env NODECTL_WEBSITE, else nodectl.json)')
    .option('--domain <domain>', "the website's domain (sent as X-Site-Domain; else domain in nodectl.json)")
    .option('--base-url <url>', 'origin for urls derived from file paths (default https://<domain>)')
    .option('--watch', 'keep running and push changes and deletions as they happen')
    .addHelpText('after', '\nExit codes: 0 all accepted or skipped, 1 any errored item or failed request, 2 bad usage.')
    .action(async (source: string, flags: PushFlags, command: Command) => {
      const ctx = commandContext(command);
      const { projectDefaults } = await import('../project-file.js');
      const project = projectDefaults(flags);
      const opts = { ...flags, ...project, url: project.url ?? 'http://127.0.0.1:8787' };
      const { env } = cliIo();
      const token = opts.token ?? env.NODECTL_CONNECTOR_TOKEN;
      if (!token || !/^[^.]+\..+$/.test(token))
        throw new UsageError(
          'a connector token is required: --token <connectorId>.<secret> or env NODECTL_CONNECTOR_TOKEN (create one with `nodectl admin connector create`)',
        );
      if (!opts.website)
        throw new UsageError('--website <websiteId> is required (or NODECTL_WEBSITE, or nodectl init in this folder)');
      if (!opts.domain)
        throw new UsageError(
          '--domain <domain> is required (the website domain, e.g. example.com; or domain in nodectl.json)',
        );
      const { UrlSchema } = await import('../api-connection.js');
      const urlSource =
        flags.url !== undefined
          ? '--url'
          : env.NODECTL_URL
            ? 'NODECTL_URL'
            : project.url !== undefined
              ? 'nodectl.json'
              : 'the default';
      const rawUrl = opts.url;
      for (const [source, value] of [
        [urlSource, rawUrl],
        ['--base-url', opts.baseUrl],
      ] as const) {
        if (value === undefined) continue;
        const parsed = UrlSchema.safeParse(value);
        if (!parsed.success)
          throw new UsageError(
            `${source} ${parsed.error.issues[0]?.message ?? 'is not valid'} (got ${JSON.stringify(value)})`,
          );
      }
      const url = new URL(rawUrl).origin;
      const { existsSync, statSync } = await import('node:fs');
      if (!existsSync(source)) throw new UsageError(`${source} does not exist: give a folder or a .jsonl file`);
      const isDir = statSync(source).isDirectory();
      if (!isDir && !source.endsWith('.jsonl')) throw new UsageError(`${source} is neither a folder nor a .jsonl file`);
      if (opts.watch && !isDir) throw new UsageError('--watch needs a folder');

      const { createInkProgress, createPlainProgress } = await import('../push/progress.js');
      const { wantsProgressBar } = await import('../terminal.js');
      const progress = wantsProgressBar(ctx.out.json) ? await createInkProgress() : createPlainProgress();
      const { runPush } = await import('../push/run-push.js');
      const pushOptions = {
        source,
        url,
        urlSource,
        token,
        websiteId: opts.website,
        domain: opts.domain,
        baseUrl: opts.baseUrl,
        progress,
      };
      const report = await runPush(pushOptions).catch((error: unknown) => {
        progress.stop();
        throw error;
      });
      if (opts.watch) {
        const { watchFolder } = await import('../push/watch.js');
        const controller = new AbortController();
        const stop = () => controller.abort();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
        await watchFolder({ ...pushOptions, report, signal: controller.signal });
      }
      progress.stop();
      const { formatPushSummary } = await import('../push/progress.js');
      const s = report.summary;
      ctx.out.result({ ...s, problems: report.problems, item_errors: report.itemErrors }, () =>
        [
          ...report.itemErrors.map((e) => `error ${e.id ?? '(no id)'}: [${e.code}] ${e.message}`),
          formatPushSummary(s),
        ].join('\n'),
      );
      if (s.errored > 0 || s.failedRequests > 0 || s.notSent > 0 || report.problems.length > 0)
        cliIo().exitCode = EXIT.failure;
    });
}
