import type { Command } from 'commander';
import type { CreateWebhookBody } from '../../api/client.js';
import { addApiOptions, type ApiFlags } from '../api-connection.js';
import { commandContext } from '../context.js';
import { EXIT, UsageError } from '../errors.js';
import { formatTable } from '../output.js';

function parseEvents(value: string): string[] {
  const events = value.split(',').map((e) => e.trim()).filter((e) => e !== '');
  if (events.length === 0) throw new UsageError('--events needs at least one event type, e.g. node.published,ingest.completed');
  return events;
}

/**
 * `nodectl webhooks list|create|delete|test`: a website's webhook subscriptions over HTTP
 * (organization_admin; creating needs the plan's cap.webhooks).
 */
export function registerWebhooksCommands(program: Command): void {
  const webhooks = program.command('webhooks').description("manage a website's webhook subscriptions over the management API (--url and --api-key, NODECTL_URL and NODECTL_API_KEY, or nodectl login)");

  addApiOptions(webhooks.command('list').description('list the subscriptions of a website (no secrets)'), true)
    .requiredOption('--website <websiteId>', 'the website')
    .action(async (opts: ApiFlags & { website: string }, command: Command) => {
      const ctx = commandContext(command);
      const { connectApi, reportApiFailure } = await import('../api-connection.js');
      const { collectPages } = await import('../../api/client.js');
      const { client } = await connectApi(opts);
      const rows = await collectPages((cursor) => client.webhooks.list(opts.website, { limit: 100, cursor })).catch(reportApiFailure);
      ctx.out.result(rows, () =>
        formatTable(['ID', 'URL', 'EVENTS', 'ENABLED', 'FAILING SINCE'], rows.map((r) => [r.id, r.url, r.events.join(','), r.enabled ? 'yes' : `no (${r.disabledReason})`, r.failingSince])),
      );
    });

  addApiOptions(webhooks.command('create').description('subscribe an endpoint to events of a website; prints its signing secret once').argument('<endpoint>', 'where deliveries are POSTed, e.g. https://hooks.example.com/nodectl'), true)
    .requiredOption('--website <websiteId>', 'the website')
    .requiredOption('--events <list>', 'comma-separated event types, e.g. node.published,ingest.completed')
    .option('--description <text>', 'a note for people')
    .action(async (endpoint: string, opts: ApiFlags & { website: string; events: string; description?: string }, command: Command) => {
      const ctx = commandContext(command);
      const events = parseEvents(opts.events) as CreateWebhookBody['events'];
      const { connectApi, reportApiFailure } = await import('../api-connection.js');
      const { client } = await connectApi(opts);
      const record = await client.webhooks.create(opts.website, { url: endpoint, events, ...(opts.description !== undefined ? { description: opts.description } : {}) }).catch(reportApiFailure);
      ctx.out.result(record, () => [`created webhook ${record.id} for ${record.url} (events ${record.events.join(',')})`, `secret (shown once, keep it secret): ${record.secret}`].join('\n'));
    });

  addApiOptions(webhooks.command('delete').description('delete a subscription; its deliveries stop').argument('<webhookId>', 'the subscription id (whk_...)'), true)
    .requiredOption('--website <websiteId>', 'the website')
    .action(async (webhookId: string, opts: ApiFlags & { website: string }, command: Command) => {
      const ctx = commandContext(command);
      const { connectApi, reportApiFailure } = await import('../api-connection.js');
      await (await connectApi(opts)).client.webhooks.delete(opts.website, webhookId).catch(reportApiFailure);
      ctx.out.result({ id: webhookId, deleted: true }, () => `deleted webhook ${webhookId}`);
    });

  addApiOptions(webhooks.command('test').description('send one signed webhook.test request and show what the endpoint answered (exit 1 unless it answered 2xx)').argument('<webhookId>', 'the subscription id (whk_...)'), true)
    .requiredOption('--website <websiteId>', 'the website')
    .action(async (webhookId: string, opts: ApiFlags & { website: string }, command: Command) => {
      const ctx = commandContext(command);
      const { connectApi, reportApiFailure } = await import('../api-connection.js');
      const result = await (await connectApi(opts)).client.webhooks.test(opts.website, webhookId).catch(reportApiFailure);
      ctx.out.result(result, () => `${result.eventId}: ${result.delivered ? 'delivered' : `not delivered (${result.error})`}${result.status === null ? '' : `, http ${result.status}`}, ${result.durationMs} ms`);
      if (!result.delivered) process.exitCode = EXIT.failure;
    });
}
