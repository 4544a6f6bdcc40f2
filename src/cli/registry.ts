import type { Command } from 'commander';
import { registerAdminCommands } from './commands/admin-command.js';
import { registerAdminKeysCommands } from './commands/admin-keys-command.js';
import { registerConfigCommand } from './commands/config-command.js';
import { registerJobsCommands } from './commands/jobs-command.js';
import { registerServeCommand } from './commands/serve-command.js';
import { registerPushCommand } from './commands/push-command.js';
import { registerCompileCommand } from './commands/compile-command.js';
import { registerGoldenCommands } from './commands/golden-command.js';
import { registerValidateCommand } from './commands/validate-command.js';
import { registerPublishCommand } from './commands/publish-command.js';
import { registerRollbackCommand } from './commands/rollback-command.js';
import { registerVersionsCommand } from './commands/versions-command.js';
import { registerAnalyticsCommand } from './commands/analytics-command.js';
import { registerMcpCommand } from './commands/mcp-command.js';
import { registerLoginCommands } from './commands/login-command.js';
import { registerWebsitesCommands } from './commands/websites-command.js';
import { registerConnectorsCommands } from './commands/connectors-command.js';
import { registerWebhooksCommands } from './commands/webhooks-command.js';
import { registerSearchCommand } from './commands/search-command.js';
import { registerInitCommand } from './commands/init-command.js';
import { registerCompletionCommand } from './commands/completion-command.js';
import { registerBackupCommands } from './commands/backup-command.js';

/**
 * Every top-level command, declared without loading its implementation: each register function
 * only declares flags and lazily imports what runs, so `nodectl compile` never loads the HTTP
 * server or the AWS SDK. Add a command by adding one line here.
 */
export const COMMANDS: ReadonlyArray<(program: Command) => void> = [
  registerServeCommand,
  registerConfigCommand,
  registerAdminCommands,
  registerAdminKeysCommands,
  registerJobsCommands,
  registerPushCommand,
  registerCompileCommand,
  registerGoldenCommands,
  registerValidateCommand,
  registerPublishCommand,
  registerRollbackCommand,
  registerVersionsCommand,
  registerAnalyticsCommand,
  registerMcpCommand,
  registerLoginCommands,
  registerWebsitesCommands,
  registerConnectorsCommands,
  registerWebhooksCommands,
  registerSearchCommand,
  registerInitCommand,
  registerCompletionCommand,
  registerBackupCommands,
];
