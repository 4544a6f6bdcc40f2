import type { Command } from 'commander';
import type { UpdateWebsiteBody, Website } from '../../sdk/api/index.js';
import { addApiOptions, type ApiFlags } from '../api-connection.js';
import { commandContext } from '../context.js';
import { UsageError } from '../errors.js';
import { formatTable } from '../output.js';

const websiteRows = (rows: readonly Website[]) => rows.map((r) => [r.id, r.domain, r.name, r.organizationId]);

/**
 * `nodectl websites list|get|create|update|delete`: the website routes over HTTP (--url,
 * --api-key, the environment or the nodectl login session), with the output of
 * `nodectl admin website`.
 */
export function registerWebsitesCommands(program: Command): void {
  const websites = program
    .command('websites')
    .description(
      'list, read, create, change and delete websites over the management API (--url and --api-key, NODECTL_URL and NODECTL_API_KEY, or nodectl login)',
    );

  addApiOptions(
    websites
      .command('list')
      .description(
        "list the websites of an organization (default: every organization of the caller; an API key's is its own)",
      ),
    true,
  )
    .option('--org <orgId>', 'only this organization')
    .action(async (opts: ApiFlags & { org?: string }, command: Command) => {
      const ctx = commandContext(command);
      const { connectApi, reportApiFailure } = await import('../api-connection.js');
      const { collectPages } = await import('../../sdk/api/index.js');
      const { client } = await connectApi(opts);
      const rows = await (async () => {
        const orgs =
          opts.org !== undefined
            ? [opts.org]
            : (await collectPages((cursor) => client.organizations.list({ limit: 100, cursor }))).map((o) => o.id);
        const all: Website[] = [];
        for (const org of orgs)
          all.push(...(await collectPages((cursor) => client.websites.list(org, { limit: 100, cursor }))));
        return all;
      })().catch(reportApiFailure);
      ctx.out.result(rows, () => formatTable(['ID', 'DOMAIN', 'NAME', 'ORG'], websiteRows(rows)));
    });

  addApiOptions(
    websites
      .command('get')
      .description('show one website with its verification and aliases')
      .argument('<websiteId>', 'the website id (web_...)'),
    true,
  ).action(async (websiteId: string, opts: ApiFlags, command: Command) => {
    const ctx = commandContext(command);
    const { callApi } = await import('../api-connection.js');
    const website = await callApi(opts, (client) => client.websites.get(websiteId));
    ctx.out.result(website, () =>
      [
        formatTable(
          ['ID', 'DOMAIN', 'NAME', 'ORG', 'VERIFICATION'],
          [[...websiteRows([website])[0]!, `${website.verification.state} (${website.verification.trustTier})`]],
        ),
        ...(website.aliases.length > 0
          ? [`aliases: ${website.aliases.map((a) => `${a.domain} (${a.state})`).join(', ')}`]
          : []),
      ].join('\n'),
    );
  });

  addApiOptions(
    websites.command('create').description('create a website in an organization (organization_admin)'),
    true,
  )
    .requiredOption('--org <orgId>', 'organization id')
    .requiredOption('--domain <domain>', 'host name, e.g. example.com')
    .requiredOption('--name <name>', 'display name')
    .option('--language <tag>', 'default language (BCP-47)', 'en')
    .option('--brand <name>', 'the name AI consumers see (default: --name)')
    .action(
      async (
        opts: ApiFlags & { org: string; domain: string; name: string; language: string; brand?: string },
        command: Command,
      ) => {
        const ctx = commandContext(command);
        const { callApi } = await import('../api-connection.js');
        const record = await callApi(opts, (client) =>
          client.websites.create(opts.org, {
            domain: opts.domain,
            name: opts.name,
            defaultLanguage: opts.language,
            ...(opts.brand !== undefined ? { brand: opts.brand } : {}),
          }),
        );
        ctx.out.result(
          record,
          () => `created website ${record.id} (${record.domain}, verification ${record.verification.state})`,
        );
      },
    );

  addApiOptions(
    websites
      .command('update')
      .description("change a website's name, brand or default language; never its domain (editor)")
      .argument('<websiteId>', 'the website id (web_...)'),
    true,
  )
    .option('--name <name>', 'display name')
    .option('--brand <name>', 'the name AI consumers see')
    .option('--no-brand', 'let AI consumers see the name again')
    .option('--language <tag>', 'default language (BCP-47)')
    .action(
      async (
        websiteId: string,
        opts: ApiFlags & { name?: string; brand?: string | false; language?: string },
        command: Command,
      ) => {
        const ctx = commandContext(command);
        const changes: UpdateWebsiteBody = {
          ...(opts.name !== undefined ? { name: opts.name } : {}),
          ...(opts.brand !== undefined ? { brand: opts.brand === false ? null : opts.brand } : {}),
          ...(opts.language !== undefined ? { defaultLanguage: opts.language } : {}),
        };
        if (Object.keys(changes).length === 0)
          throw new UsageError('give at least one of --name, --brand, --no-brand, --language');
        const { callApi, validatedBody } = await import('../api-connection.js');
        const { UpdateWebsiteBodySchema } = await import('../../control/websites/index.js');
        const body = validatedBody(UpdateWebsiteBodySchema, changes, {
          name: '--name',
          brand: '--brand',
          defaultLanguage: '--language',
        });
        const record = await callApi(opts, (client) => client.websites.update(websiteId, body));
        ctx.out.result(
          record,
          () =>
            `updated website ${record.id} (${record.domain}): name ${record.name}, brand ${record.brand ?? '(the name)'}, language ${record.defaultLanguage}`,
        );
      },
    );

  addApiOptions(
    websites
      .command('delete')
      .description('delete a website for good, with its graph and every published version (organization_admin)')
      .argument('<websiteId>', 'the website id (web_...)'),
    true,
  )
    .requiredOption('--confirm <domain>', "the website's domain, typed again so no website is deleted by accident")
    .action(async (websiteId: string, opts: ApiFlags & { confirm: string }, command: Command) => {
      const ctx = commandContext(command);
      if (opts.confirm.trim() === '')
        throw new UsageError("--confirm needs the website's domain, e.g. --confirm example.com");
      const { callApi } = await import('../api-connection.js');
      await callApi(opts, (client) => client.websites.delete(websiteId, { confirm: opts.confirm }));
      ctx.out.result(
        { id: websiteId, deleted: true },
        () =>
          `deleted website ${websiteId} (${opts.confirm.trim().toLowerCase()}) with its graph and every published version`,
      );
    });
}
