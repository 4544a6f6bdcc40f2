import type { Command } from 'commander';
import { commandContext, type CommandContext } from '../context.js';
import { UsageError } from '../errors.js';
import type { Db } from '../../platform/storage/index.js';

/** Opens the control database and the master key of the configured data directory. */
async function withConnectorStore<T>(ctx: CommandContext, action: (db: Db, masterKey: Buffer) => T): Promise<T> {
  const { openControlDb } = await import('../../platform/storage/index.js');
  const { dataDirLayout, readMasterKey } = await import('../../platform/storage/index.js');
  const layout = dataDirLayout(ctx.config.settings.dataDir);
  const db = openControlDb(layout, ctx.config.settings.controlStore);
  try {
    return action(db, readMasterKey(layout));
  } finally {
    db.close();
  }
}

function parseSourceTypes(value: string): string[] {
  const types = value
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
  if (types.length === 0) throw new UsageError('--source-types needs at least one type, e.g. page,post');
  return types;
}

/** Connector subcommands of `nodectl admin` (create, list, rotate, suspend, resume, delete). */
export function registerAdminConnectorCommands(admin: Command): void {
  const connector = admin.command('connector').description('manage ingest connectors (signed push credentials)');
  connector
    .command('create')
    .description('create a connector bound to one website; prints its token once')
    .requiredOption('--website <websiteId>', 'website the connector may write to')
    .requiredOption('--type <type>', 'connector kind, e.g. files, wordpress, shopify')
    .requiredOption('--source-types <list>', 'comma-separated item types it may send, e.g. page,post')
    .option('--name <name>', 'label (default: the type)')
    .action(async (opts: { website: string; type: string; sourceTypes: string; name?: string }, command: Command) => {
      const ctx = commandContext(command);
      const sourceTypes = parseSourceTypes(opts.sourceTypes);
      const { createConnector } = await import('../../control/connectors/index.js');
      const record = await withConnectorStore(ctx, (db, key) =>
        createConnector(db, key, {
          websiteId: opts.website,
          connectorType: opts.type,
          sourceTypes: sourceTypes as never,
          name: opts.name,
        }),
      );
      ctx.out.result(record, () =>
        [
          `created connector ${record.id} for website ${record.scope.websiteId} (types ${record.scope.sourceTypes.join(',')})`,
          `token (shown once, keep it secret): ${record.token}`,
        ].join('\n'),
      );
    });
  connector
    .command('list')
    .description('list connectors (no secrets)')
    .option('--website <websiteId>', 'only this website')
    .action(async (opts: { website?: string }, command: Command) => {
      const ctx = commandContext(command);
      const { listConnectors } = await import('../../control/connectors/index.js');
      const rows = await withConnectorStore(ctx, (db) => listConnectors(db, opts.website));
      const { formatConnectorTable } = await import('../connector-table.js');
      ctx.out.result(rows, () => formatConnectorTable(rows));
    });
  connector
    .command('rotate <id>')
    .description('issue a new token; the old one stops working at once')
    .action(async (id: string, _opts, command: Command) => {
      const ctx = commandContext(command);
      const { rotateConnector } = await import('../../control/connectors/index.js');
      const record = await withConnectorStore(ctx, (db, key) => rotateConnector(db, key, id));
      ctx.out.result(record, () =>
        [
          `rotated connector ${record.id} (token version ${record.tokenVersion})`,
          `token (shown once, keep it secret): ${record.token}`,
        ].join('\n'),
      );
    });
  for (const [name, description, fn] of [
    ['suspend', "reject the connector's requests until it is resumed", 'suspendConnector'],
    ['resume', "accept a suspended connector's requests again", 'resumeConnector'],
    ['delete', 'revoke the connector for good', 'deleteConnector'],
  ] as const) {
    connector
      .command(`${name} <id>`)
      .description(description)
      .action(async (id: string, _opts, command: Command) => {
        const ctx = commandContext(command);
        const module = await import('../../control/connectors/index.js');
        const record = await withConnectorStore(ctx, (db) => module[fn](db, id));
        ctx.out.result(record, () => `connector ${record.id} is now ${record.status}`);
      });
  }
}
