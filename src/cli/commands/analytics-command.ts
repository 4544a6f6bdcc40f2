import type { Command } from 'commander';
import type { WebsiteAnalytics } from '../../control/analytics/index.js';
import { AppError } from '../../platform/errors/index.js';
import { addApiOptions, apiRequested, type ApiFlags } from '../api-connection.js';
import { commandContext } from '../context.js';
import { UsageError } from '../errors.js';
import { formatTable } from '../output.js';
import { withControlDb } from './admin-command.js';

const BAR_WIDTH = 30;
/** Readers that are AI crawlers (the rest: search engines and other). */
const AI_AGENTS = ['gptbot', 'claudebot', 'perplexitybot', 'google_extended', 'ccbot'] as const;

/** One line a day: the numbers, then a bar of node reads scaled to the busiest day. */
export function formatAnalytics(analytics: WebsiteAnalytics): string {
  const busiest = Math.max(1, ...analytics.days.map((d) => d.node_reads));
  const rows = analytics.days.map((d) => {
    const ai = AI_AGENTS.reduce((sum, agent) => sum + d.reads_by_agent[agent], 0);
    const bar = '█'.repeat(Math.round((d.node_reads / busiest) * BAR_WIDTH)) || (d.node_reads > 0 ? '▏' : '');
    return [d.date, d.node_reads, ai, d.items_ingested, d.published_versions, bar];
  });
  const table = formatTable(['DATE', 'READS', 'AI', 'INGESTED', 'PUBLISHED', 'READS PER DAY'], rows);
  const files =
    analytics.top_files.length === 0
      ? 'no node file was read in this range'
      : formatTable(
          ['FILE', 'READS'],
          analytics.top_files.map((f) => [f.file, f.reads]),
        );
  return `${analytics.website_id}, ${analytics.from} to ${analytics.to} (UTC days, from the hourly rollups)\n\n${table}\n\n${files}`;
}

/**
 * `nodectl analytics --website <id> [--from] [--to]`: what GET
 * /v1/websites/:id/analytics answers, as a table with a chart.
 */
export function registerAnalyticsCommand(program: Command): void {
  addApiOptions(
    program
      .command('analytics')
      .description(
        'node reads per day (in total and by AI crawlers), items ingested and versions published, with a chart of reads, and the most read files; here or on a daemon (--url)',
      ),
  )
    .option('--website <id>', 'the website')
    .option('--from <YYYY-MM-DD>', 'first day (default: 30 days before --to)')
    .option('--to <YYYY-MM-DD>', 'last day (default: today, UTC)')
    .action(async (opts: ApiFlags & { website?: string; from?: string; to?: string }, command: Command) => {
      if (!opts.website) throw new UsageError('--website <id> is required');
      const websiteId = opts.website;
      const ctx = commandContext(command);
      const { resolveAnalyticsRange } = await import('../../control/analytics/index.js');
      let range: { from: string; to: string };
      try {
        range = resolveAnalyticsRange({ from: opts.from, to: opts.to }, Date.now());
      } catch (error) {
        const fields =
          (error as { details?: { fields?: Array<{ path: string; message: string }> } }).details?.fields ?? [];
        throw new UsageError(
          fields.length > 0 ? fields.map((f) => `--${f.path}: ${f.message}`).join('; ') : (error as Error).message,
        );
      }
      if (apiRequested(opts)) {
        const { connectApi, reportApiFailure } = await import('../api-connection.js');
        const api = await connectApi(opts);
        // The range as given: the daemon applies the same defaults on its own clock.
        const analytics = await api.client.analytics
          .read(websiteId, { from: opts.from, to: opts.to })
          .catch(reportApiFailure);
        return ctx.out.result(analytics, () => formatAnalytics(analytics));
      }
      const [{ readWebsiteAnalytics }, { getWebsite }] = await Promise.all([
        import('../../control/analytics/index.js'),
        import('../../control/records/index.js'),
      ]);
      const analytics = await withControlDb(ctx, (db) => {
        if (!getWebsite(db, websiteId))
          throw new AppError(
            'website.not_found',
            `No website ${websiteId} in this data directory (nodectl admin website list shows them).`,
          );
        return readWebsiteAnalytics(db, websiteId, range.from, range.to);
      });
      ctx.out.result(analytics, () => formatAnalytics(analytics));
    });
}
