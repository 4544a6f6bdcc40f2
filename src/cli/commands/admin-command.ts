import { Option, type Command } from 'commander';
import { PLANS } from '../../control/plans/index.js';
import { VERIFICATION_METHOD_INPUTS } from '../../control/records/index.js';
import { commandContext, type CommandContext } from '../context.js';
import { formatTable } from '../output.js';
import { UsageError } from '../errors.js';
import { registerAdminConnectorCommands } from './admin-connector-command.js';
import type { Db } from '../../platform/storage/index.js';

/** Opens the control database of the configured data directory for one admin action. */
export async function withControlDb<T>(ctx: CommandContext, action: (db: Db) => T | Promise<T>): Promise<T> {
  const { openControlDb } = await import('../../platform/storage/index.js');
  const { dataDirLayout } = await import('../../platform/storage/index.js');
  const db = openControlDb(dataDirLayout(ctx.config.settings.dataDir), ctx.config.settings.controlStore);
  try {
    return await action(db);
  } finally {
    db.close();
  }
}

export function registerAdminCommands(program: Command): void {
  const admin = program
    .command('admin')
    .description('bootstrap users, organizations, websites, connectors and API keys in the data directory');

  const user = admin.command('user').description('manage users');
  user
    .command('create')
    .description('create a user')
    .requiredOption('--email <email>', 'email address')
    .requiredOption('--password <password>', 'password, at least 10 characters')
    .action(async (opts: { email: string; password: string }, command: Command) => {
      const ctx = commandContext(command);
      const { createUser } = await import('../../control/records/index.js');
      const record = await withControlDb(ctx, (db) => createUser(db, opts));
      ctx.out.result(record, () => `created user ${record.id} (${record.email})`);
    });
  user
    .command('list')
    .description('list users')
    .action(async (_opts, command: Command) => {
      const ctx = commandContext(command);
      const { listUsers } = await import('../../control/records/index.js');
      const rows = await withControlDb(ctx, listUsers);
      ctx.out.result(rows, () =>
        formatTable(
          ['ID', 'EMAIL', 'CREATED'],
          rows.map((r) => [r.id, r.email, r.createdAt]),
        ),
      );
    });

  const org = admin.command('org').description('manage organizations');
  org
    .command('create')
    .description('create an organization owned by an existing user')
    .requiredOption('--name <name>', 'organization name')
    .requiredOption('--owner <email>', 'email of the owning user')
    .addOption(new Option('--plan <plan>', 'entitlement plan').choices(PLANS).default('free'))
    .action(async (opts: { name: string; owner: string; plan: (typeof PLANS)[number] }, command: Command) => {
      const ctx = commandContext(command);
      const { createOrganization } = await import('../../control/records/index.js');
      const record = await withControlDb(ctx, (db) =>
        createOrganization(db, { name: opts.name, ownerEmail: opts.owner, plan: opts.plan }),
      );
      ctx.out.result(record, () => `created organization ${record.id} (${record.name}, plan ${record.plan})`);
    });
  org
    .command('list')
    .description('list organizations')
    .action(async (_opts, command: Command) => {
      const ctx = commandContext(command);
      const { listOrganizations } = await import('../../control/records/index.js');
      const rows = await withControlDb(ctx, listOrganizations);
      ctx.out.result(rows, () =>
        formatTable(
          ['ID', 'NAME', 'SLUG', 'PLAN'],
          rows.map((r) => [r.id, r.name, r.slug, r.plan]),
        ),
      );
    });

  org
    .command('set-plan')
    .description("set an organization's plan (billing is not offered: the operator sets plans)")
    .requiredOption('--org <orgId>', 'organization id')
    .addOption(new Option('--plan <plan>', 'entitlement plan').choices(PLANS).makeOptionMandatory())
    .action(async (opts: { org: string; plan: (typeof PLANS)[number] }, command: Command) => {
      const ctx = commandContext(command);
      const { setPlanAsOperator } = await import('../../control/organizations/index.js');
      const changed = await withControlDb(ctx, (db) => setPlanAsOperator(db, opts.org, opts.plan));
      ctx.out.result(
        changed.organization,
        () =>
          `organization ${changed.organization.id} (${changed.organization.name}): plan ${changed.previous} -> ${changed.organization.plan}`,
      );
    });

  const website = admin.command('website').description('manage websites');
  website
    .command('create')
    .description('create a website in an organization')
    .requiredOption('--org <orgId>', 'organization id')
    .requiredOption('--domain <domain>', 'host name, e.g. example.com')
    .requiredOption('--name <name>', 'display name')
    .option('--language <tag>', 'default language (BCP-47)', 'en')
    .addOption(
      new Option(
        '--verified <method>',
        'mark ownership verified by this method at once, without a check (scripted setups; prefer `admin website verify --manual`); html_meta, plugin_signed and well_known name meta_tag, plugin and well_known_file',
      ).choices(VERIFICATION_METHOD_INPUTS),
    )
    .action(
      async (
        opts: {
          org: string;
          domain: string;
          name: string;
          language: string;
          verified?: (typeof VERIFICATION_METHOD_INPUTS)[number];
        },
        command: Command,
      ) => {
        const ctx = commandContext(command);
        const { createWebsite } = await import('../../control/records/index.js');
        const record = await withControlDb(ctx, (db) =>
          createWebsite(db, {
            organizationId: opts.org,
            domain: opts.domain,
            name: opts.name,
            defaultLanguage: opts.language,
            verifiedMethod: opts.verified,
          }),
        );
        ctx.out.result(
          record,
          () => `created website ${record.id} (${record.domain}, verification ${record.verification.state})`,
        );
      },
    );
  website
    .command('list')
    .description('list websites')
    .option('--org <orgId>', 'only this organization')
    .action(async (opts: { org?: string }, command: Command) => {
      const ctx = commandContext(command);
      const { listWebsites } = await import('../../control/records/index.js');
      const rows = await withControlDb(ctx, (db) => listWebsites(db, opts.org));
      ctx.out.result(rows, () =>
        formatTable(
          ['ID', 'DOMAIN', 'NAME', 'ORG'],
          rows.map((r) => [r.id, r.domain, r.name, r.organizationId]),
        ),
      );
    });
  website
    .command('verify')
    .description(
      "grant a website's ownership verification by hand (trust tier manual, weight 0.5); owners prove it themselves over the API",
    )
    .requiredOption('--website <websiteId>', 'website id')
    .option('--manual', 'grant the manual tier: the operator vouches for the domain (required)')
    .option('--domain <domain>', "one of the website's aliases (default: its own domain)")
    .option('--note <text>', 'why, kept as the evidence of the grant', 'granted by the operator')
    .action(async (opts: { website: string; manual?: boolean; domain?: string; note: string }, command: Command) => {
      if (!opts.manual)
        throw new UsageError(
          'give --manual: the shell grants only manual verification (owners verify with POST /v1/websites/:id/verification/challenge and .../check)',
        );
      const ctx = commandContext(command);
      const [{ grantManualFromShell }, { createServices }] = await Promise.all([
        import('../../control/verification/index.js'),
        import('../../daemon/index.js'),
      ]);
      const services = createServices(ctx.config);
      let record;
      try {
        record = grantManualFromShell(services, {
          websiteId: opts.website,
          domain: opts.domain?.trim().toLowerCase(),
          note: opts.note,
        });
      } finally {
        services.close();
      }
      ctx.out.result(
        record,
        () =>
          `${record.domain}: verification ${record.state} (method ${record.method}, trust score ${record.trustScore})`,
      );
    });

  const apiKey = admin.command('api-key').description('manage API keys for the management API');
  apiKey
    .command('create')
    .description('create an API key (shown once)')
    .requiredOption('--org <orgId>', 'organization id')
    .option('--name <name>', 'label', 'api key')
    .addOption(
      new Option('--role <role>', 'role of the key')
        .choices(['viewer', 'editor', 'organization_admin'])
        .default('editor'),
    )
    .action(
      async (
        opts: { org: string; name: string; role: 'viewer' | 'editor' | 'organization_admin' },
        command: Command,
      ) => {
        const ctx = commandContext(command);
        const { createApiKey } = await import('../../control/records/index.js');
        const record = await withControlDb(ctx, (db) =>
          createApiKey(db, { organizationId: opts.org, name: opts.name, role: opts.role }),
        );
        ctx.out.result(
          record,
          () => `created API key ${record.id} (role ${record.role})\nkey (shown once): ${record.key}`,
        );
      },
    );
  apiKey
    .command('list')
    .description('list API keys (no secrets)')
    .option('--org <orgId>', 'only this organization')
    .action(async (opts: { org?: string }, command: Command) => {
      const ctx = commandContext(command);
      const { listApiKeys } = await import('../../control/records/index.js');
      const rows = await withControlDb(ctx, (db) => listApiKeys(db, opts.org));
      ctx.out.result(rows, () =>
        formatTable(
          ['ID', 'ORG', 'ROLE', 'PREFIX', 'REVOKED'],
          rows.map((r) => [r.id, r.organizationId, r.role, r.prefix + '…', r.revokedAt ?? '']),
        ),
      );
    });

  registerAdminConnectorCommands(admin);
}
