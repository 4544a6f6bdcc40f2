import type { Command } from 'commander';
import { commandContext, type CommandContext } from '../context.js';
import { formatTable } from '../output.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The ring options of the configured data directory: the algorithm setting and the 15-minute token lifetime. */
async function ringOptions(ctx: CommandContext) {
  const { dataDirLayout, ensureDataDir } = await import('../../platform/storage/index.js');
  const { ACCESS_TOKEN_LIFETIME_SECONDS } = await import('../../control/accounts/index.js');
  const layout = dataDirLayout(ctx.config.settings.dataDir);
  ensureDataDir(layout);
  return {
    layout,
    algorithm: ctx.config.settings.accessTokenAlgorithm,
    tokenLifetimeMs: ACCESS_TOKEN_LIFETIME_SECONDS * 1000,
  };
}

/**
 * `nodectl admin keys rotate|list`: the access-token signing keys (docs/auth.md). Declared under the
 * existing `admin` command, which src/cli/registry.ts registers first.
 */
export function registerAdminKeysCommands(program: Command): void {
  const admin = program.commands.find((command) => command.name() === 'admin') ?? program.command('admin');
  const keys = admin.command('keys').description('manage the keys that sign access tokens');
  keys
    .command('rotate')
    .description(
      'make a new signing key; earlier keys stop signing and verify their tokens until those expire (15 min)',
    )
    .action(async (_opts, command: Command) => {
      const ctx = commandContext(command);
      const { layout, algorithm, tokenLifetimeMs } = await ringOptions(ctx);
      const { rotateSigningKey } = await import('../../control/accounts/index.js');
      const result = await rotateSigningKey(layout, { algorithm, tokenLifetimeMs, now: Date.now() });
      ctx.out.result(result, () =>
        [
          `new ${result.alg} signing key ${result.kid}`,
          ...result.retired.map((kid) => `retired ${kid} (verifies for 15 more minutes)`),
          ...result.removed.map((kid) => `removed ${kid} (every token it signed has expired)`),
        ].join('\n'),
      );
    });
  keys
    .command('list')
    .description('list signing keys with their state (active, retired, expired)')
    .action(async (_opts, command: Command) => {
      const ctx = commandContext(command);
      const { layout, algorithm, tokenLifetimeMs } = await ringOptions(ctx);
      const { SigningKeyRing } = await import('../../control/accounts/index.js');
      const rows = await new SigningKeyRing(layout, { algorithm, tokenLifetimeMs, now: Date.now }).list();
      ctx.out.result(rows, () =>
        formatTable(
          ['KID', 'ALG', 'STATE', 'CREATED', 'RETIRED'],
          rows.map((r) => [r.kid, r.alg, r.state, iso(r.createdAt), iso(r.retiredAt)]),
        ),
      );
    });
}
