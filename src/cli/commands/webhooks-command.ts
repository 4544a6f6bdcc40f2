import type { Command } from 'commander';
import type {
  CreateWebhookBody,
  UpdateWebhookBody,
  WebhookDeliveriesQuery,
  WebhookDelivery,
  WebhookSubscription,
} from '../../sdk/api/index.js';
import { addApiOptions, type ApiFlags } from '../api-connection.js';
import { commandContext } from '../context.js';
import { EXIT, UsageError } from '../errors.js';
import { formatTable } from '../output.js';
import { cliIo } from '../io.js';

const DELIVERY_STATES = ['pending', 'succeeded', 'failed'] as const satisfies ReadonlyArray<
  WebhookDeliveriesQuery['state']
>;

const enabledText = (r: WebhookSubscription) => (r.enabled ? 'yes' : `no (${r.disabledReason})`);

function parseLimit(value: string): number {
  const limit = Number(value);
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000)
    throw new UsageError('--limit must be a whole number from 1 to 10000');
  return limit;
}

function parseEvents(value: string): string[] {
  const events = value
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  if (events.length === 0)
    throw new UsageError('--events needs at least one event type, e.g. node.published,ingest.completed');
  return events;
}

/**
 * `nodectl webhooks list|create|update|delete|test|deliveries`: a website's webhook
 * subscriptions over HTTP (organization_admin; creating needs the plan's cap.webhooks).
 */
export function registerWebhooksCommands(program: Command): void {
  const webhooks = program
    .command('webhooks')
    .description(
      "manage a website's webhook subscriptions over the management API (--url and --api-key, NODECTL_URL and NODECTL_API_KEY, or nodectl login)",
    );

  addApiOptions(webhooks.command('list').description('list the subscriptions of a website (no secrets)'), true)
    .requiredOption('--website <websiteId>', 'the website')
    .action(async (opts: ApiFlags & { website: string }, command: Command) => {
      const ctx = commandContext(command);
      const { listAllOverApi } = await import('../api-connection.js');
      const rows = await listAllOverApi(opts, (client, page) => client.webhooks.list(opts.website, page));
      ctx.out.result(rows, () =>
        formatTable(
          ['ID', 'URL', 'EVENTS', 'ENABLED', 'FAILING SINCE'],
          rows.map((r) => [r.id, r.url, r.events.join(','), enabledText(r), r.failingSince]),
        ),
      );
    });

  addApiOptions(
    webhooks
      .command('create')
      .description('subscribe an endpoint to events of a website; prints its signing secret once')
      .argument('<endpoint>', 'where deliveries are POSTed, e.g. https://hooks.example.com/nodectl'),
    true,
  )
    .requiredOption('--website <websiteId>', 'the website')
    .requiredOption('--events <list>', 'comma-separated event types, e.g. node.published,ingest.completed')
    .option('--description <text>', 'a note for people')
    .action(
      async (
        endpoint: string,
        opts: ApiFlags & { website: string; events: string; description?: string },
        command: Command,
      ) => {
        const ctx = commandContext(command);
        const events = parseEvents(opts.events) as CreateWebhookBody['events'];
        const { callApi } = await import('../api-connection.js');
        const record = await callApi(opts, (client) =>
          client.webhooks.create(opts.website, {
            url: endpoint,
            events,
            ...(opts.description !== undefined ? { description: opts.description } : {}),
          }),
        );
        ctx.out.result(record, () =>
          [
            `created webhook ${record.id} for ${record.url} (events ${record.events.join(',')})`,
            `secret (shown once, keep it secret): ${record.secret}`,
          ].join('\n'),
        );
      },
    );

  // The endpoint is --endpoint here: --url names the daemon on every command over HTTP.
  addApiOptions(
    webhooks
      .command('update')
      .description("change a subscription's endpoint, events or description, or disable or enable it")
      .argument('<webhookId>', 'the subscription id (whk_...)'),
    true,
  )
    .requiredOption('--website <websiteId>', 'the website')
    .option('--endpoint <url>', 'where deliveries are POSTed from now on')
    .option('--events <list>', 'comma-separated event types, replacing the current ones')
    .option('--description <text>', 'a note for people')
    .option('--enable', 'enable it again (a fresh failing window)')
    .option('--disable', 'disable it by hand; deliveries stop until --enable')
    .action(
      async (
        webhookId: string,
        opts: ApiFlags & {
          website: string;
          endpoint?: string;
          events?: string;
          description?: string;
          enable?: boolean;
          disable?: boolean;
        },
        command: Command,
      ) => {
        const ctx = commandContext(command);
        if (opts.enable && opts.disable) throw new UsageError('--enable and --disable exclude each other');
        const changes: UpdateWebhookBody = {
          ...(opts.endpoint !== undefined ? { url: opts.endpoint } : {}),
          ...(opts.events !== undefined ? { events: parseEvents(opts.events) as UpdateWebhookBody['events'] } : {}),
          ...(opts.description !== undefined ? { description: opts.description } : {}),
          ...(opts.enable || opts.disable ? { enabled: opts.enable === true } : {}),
        };
        if (Object.keys(changes).length === 0)
          throw new UsageError('give at least one of --endpoint, --events, --description, --enable, --disable');
        const { callApi, validatedBody } = await import('../api-connection.js');
        const { UpdateSubscriptionSchema } = await import('../../control/webhooks/index.js');
        const body = validatedBody(UpdateSubscriptionSchema, changes, {
          url: '--endpoint',
          events: '--events',
          description: '--description',
        });
        const record = await callApi(opts, (client) => client.webhooks.update(opts.website, webhookId, body));
        ctx.out.result(
          record,
          () =>
            `updated webhook ${record.id}: ${record.url} (events ${record.events.join(',')}, enabled ${enabledText(record)})`,
        );
      },
    );

  addApiOptions(
    webhooks
      .command('deliveries')
      .description("list a subscription's deliveries, newest first")
      .argument('<webhookId>', 'the subscription id (whk_...)'),
    true,
  )
    .requiredOption('--website <websiteId>', 'the website')
    .option('--state <state>', `only deliveries in this state (${DELIVERY_STATES.join(', ')})`)
    .option('--limit <n>', 'how many', '50')
    .action(
      async (
        webhookId: string,
        opts: ApiFlags & { website: string; state?: string; limit: string },
        command: Command,
      ) => {
        const ctx = commandContext(command);
        if (opts.state !== undefined && !(DELIVERY_STATES as readonly string[]).includes(opts.state))
          throw new UsageError(`--state must be one of ${DELIVERY_STATES.join(', ')}; got ${opts.state}`);
        const state = opts.state as WebhookDeliveriesQuery['state'];
        const limit = parseLimit(opts.limit);
        const { connectApi, reportApiFailure } = await import('../api-connection.js');
        const { client } = await connectApi(opts);
        const rows: WebhookDelivery[] = [];
        let cursor: string | undefined;
        do {
          const page = await client.webhooks
            .deliveries(opts.website, webhookId, { state, limit: Math.min(100, limit - rows.length), cursor })
            .catch(reportApiFailure);
          rows.push(...page.items);
          cursor = page.next_cursor ?? undefined;
        } while (cursor !== undefined && rows.length < limit);
        ctx.out.result(rows, () =>
          formatTable(
            ['ID', 'EVENT', 'STATE', 'ATTEMPTS', 'LAST STATUS', 'LAST ERROR', 'CREATED'],
            rows.map((d) => [d.id, d.eventType, d.state, d.attempts, d.lastStatus, d.lastError, d.createdAt]),
          ),
        );
      },
    );

  addApiOptions(
    webhooks
      .command('delete')
      .description('delete a subscription; its deliveries stop')
      .argument('<webhookId>', 'the subscription id (whk_...)'),
    true,
  )
    .requiredOption('--website <websiteId>', 'the website')
    .action(async (webhookId: string, opts: ApiFlags & { website: string }, command: Command) => {
      const ctx = commandContext(command);
      const { callApi } = await import('../api-connection.js');
      await callApi(opts, (client) => client.webhooks.delete(opts.website, webhookId));
      ctx.out.result({ id: webhookId, deleted: true }, () => `deleted webhook ${webhookId}`);
    });

  addApiOptions(
    webhooks
      .command('test')
      .description(
        'send one signed webhook.test request and show what the endpoint answered (exit 1 unless it answered 2xx)',
      )
      .argument('<webhookId>', 'the subscription id (whk_...)'),
    true,
  )
    .requiredOption('--website <websiteId>', 'the website')
    .action(async (webhookId: string, opts: ApiFlags & { website: string }, command: Command) => {
      const ctx = commandContext(command);
      const { callApi } = await import('../api-connection.js');
      const result = await callApi(opts, (client) => client.webhooks.test(opts.website, webhookId));
      ctx.out.result(
        result,
        () =>
          `${result.eventId}: ${result.delivered ? 'delivered' : `not delivered (${result.error})`}${result.status === null ? '' : `, http ${result.status}`}, ${result.durationMs} ms`,
      );
      if (!result.delivered) cliIo().exitCode = EXIT.failure;
    });
}
