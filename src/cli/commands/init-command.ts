import type { Command } from 'commander';
import { commandContext } from '../context.js';
import { UsageError } from '../errors.js';
import { cliIo } from '../io.js';

interface InitFlags {
  url?: string;
  website?: string;
  domain?: string;
  force?: boolean;
}

/**
 * `nodectl init --url <daemon> --website <id>`: writes nodectl.json in the current folder, so the
 * project's push, publish and jobs (and a CI job run there) need no --url and --website. Only
 * identifiers go in it: the secrets stay in the environment.
 */
export function registerInitCommand(program: Command): void {
  program
    .command('init')
    .description(
      'link the current folder to a daemon and a website: writes nodectl.json (the daemon URL, the website id and its domain; never a secret) that push, publish and jobs read below their flags and NODECTL_URL / NODECTL_WEBSITE',
    )
    .option('--url <url>', 'the daemon API origin, e.g. https://nodectl.example.com (env NODECTL_URL)')
    .option('--website <id>', 'the website id (env NODECTL_WEBSITE)')
    .option('--domain <domain>', "the website's domain, which push sends")
    .option('--force', 'overwrite an existing nodectl.json')
    .addHelpText(
      'after',
      '\nCommit nodectl.json; keep NODECTL_API_KEY and NODECTL_CONNECTOR_TOKEN in the environment (CI secrets).\nWith a url in nodectl.json, commands that have a local form (publish, jobs, versions, ...) call that daemon, as with NODECTL_URL.',
    )
    .action(async (flags: InitFlags, command: Command) => {
      const ctx = commandContext(command);
      const { existsSync } = await import('node:fs');
      const { writeFileAtomic } = await import('../../platform/storage/index.js');
      const { parseProject, projectFilePath, PROJECT_FILE } = await import('../project-file.js');
      const file = projectFilePath();
      if (existsSync(file) && !flags.force)
        throw new UsageError(`${file} exists: edit it, or run nodectl init --force to write it again`);
      const { env } = cliIo();
      const url = flags.url ?? (env.NODECTL_URL || undefined);
      const website = flags.website ?? (env.NODECTL_WEBSITE || undefined);
      if (url === undefined) throw new UsageError('--url <daemon URL> is required (or NODECTL_URL)');
      if (website === undefined) throw new UsageError('--website <id> is required (or NODECTL_WEBSITE)');
      const flagOf: Record<string, string> = { url: '--url', website: '--website', domain: '--domain' };
      const project = parseProject({ url, website, domain: flags.domain }, (field) => flagOf[field] ?? field);
      const body = { url: new URL(project.url).origin, website: project.website, domain: project.domain };
      writeFileAtomic(file, JSON.stringify(body, null, 2) + '\n');
      ctx.out.result({ file, ...body }, () =>
        [
          `wrote ${file}: ${body.website}${body.domain ? ` (${body.domain})` : ''} on ${body.url}`,
          `set the secrets in the environment, not in ${PROJECT_FILE}: NODECTL_API_KEY (publish, jobs) and NODECTL_CONNECTOR_TOKEN (push)`,
        ].join('\n'),
      );
    });
}
