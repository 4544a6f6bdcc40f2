import type { Command } from 'commander';
import type { ConnectorWithToken, CreateConnectorBody } from '../../sdk/api/index.js';
import { addApiOptions, type ApiFlags } from '../api-connection.js';
import { commandContext } from '../context.js';
import { UsageError } from '../errors.js';

/** The item types as given; the route checks each against the contract's types. */
function parseSourceTypes(value: string): string[] {
  const types = value
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
  if (types.length === 0) throw new UsageError('--source-types needs at least one type, e.g. page,post');
  return types;
}

const withToken = (first: string, record: ConnectorWithToken) =>
  [first, `token (shown once, keep it secret): ${record.token}`].join('\n');

/**
 * `nodectl connectors list|create|rotate|suspend|resume|delete`: the connector routes over HTTP,
 * with the output of `nodectl admin connector`.
 */
export function registerConnectorsCommands(program: Command): void {
  const connectors = program
    .command('connectors')
    .description(
      'manage the ingest connectors of a website over the management API (--url and --api-key, NODECTL_URL and NODECTL_API_KEY, or nodectl login)',
    );

  addApiOptions(connectors.command('list').description('list the connectors of a website (no secrets)'), true)
    .requiredOption('--website <websiteId>', 'the website')
    .action(async (opts: ApiFlags & { website: string }, command: Command) => {
      const ctx = commandContext(command);
      const { listAllOverApi } = await import('../api-connection.js');
      const rows = await listAllOverApi(opts, (client, page) => client.connectors.list(opts.website, page));
      const { formatConnectorTable } = await import('../connector-table.js');
      ctx.out.result(rows, () => formatConnectorTable(rows));
    });

  addApiOptions(
    connectors
      .command('create')
      .description(
        'create a connector bound to one website; prints its token once (organization_admin; the website must be verified)',
      ),
    true,
  )
    .requiredOption('--website <websiteId>', 'website the connector may write to')
    .requiredOption('--type <type>', 'connector kind, e.g. files, wordpress, shopify')
    .requiredOption('--source-types <list>', 'comma-separated item types it may send, e.g. page,post')
    .option('--name <name>', 'label (default: the type)')
    .action(
      async (
        opts: ApiFlags & { website: string; type: string; sourceTypes: string; name?: string },
        command: Command,
      ) => {
        const ctx = commandContext(command);
        const sourceTypes = parseSourceTypes(opts.sourceTypes);
        const { callApi } = await import('../api-connection.js');
        const body = {
          connectorType: opts.type,
          sourceTypes: sourceTypes as CreateConnectorBody['sourceTypes'],
          ...(opts.name !== undefined ? { name: opts.name } : {}),
        };
        const record = await callApi(opts, (client) => client.connectors.create(opts.website, body));
        ctx.out.result(record, () =>
          withToken(
            `created connector ${record.id} for website ${record.scope.websiteId} (types ${record.scope.sourceTypes.join(',')})`,
            record,
          ),
        );
      },
    );

  addApiOptions(
    connectors
      .command('rotate')
      .description('issue a new token; the old one stops working at once (organization_admin)')
      .argument('<id>', 'the connector id'),
    true,
  ).action(async (id: string, opts: ApiFlags, command: Command) => {
    const ctx = commandContext(command);
    const { callApi } = await import('../api-connection.js');
    const record = await callApi(opts, (client) => client.connectors.rotate(id));
    ctx.out.result(record, () =>
      withToken(`rotated connector ${record.id} (token version ${record.tokenVersion})`, record),
    );
  });

  for (const [verb, description] of [
    ['suspend', "refuse the connector's requests until it is resumed (organization_admin)"],
    ['resume', "accept a suspended connector's requests again (organization_admin)"],
  ] as const) {
    addApiOptions(connectors.command(verb).description(description).argument('<id>', 'the connector id'), true).action(
      async (id: string, opts: ApiFlags, command: Command) => {
        const ctx = commandContext(command);
        const { callApi } = await import('../api-connection.js');
        const record = await callApi(opts, (client) => client.connectors[verb](id));
        ctx.out.result(record, () => `connector ${record.id} is now ${record.status}`);
      },
    );
  }

  addApiOptions(
    connectors
      .command('delete')
      .description('revoke the connector for good (organization_admin)')
      .argument('<id>', 'the connector id'),
    true,
  ).action(async (id: string, opts: ApiFlags, command: Command) => {
    const ctx = commandContext(command);
    const { callApi } = await import('../api-connection.js');
    await callApi(opts, (client) => client.connectors.delete(id));
    ctx.out.result({ id, status: 'revoked' }, () => `connector ${id} is now revoked`);
  });
}
