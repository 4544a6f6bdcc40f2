import type { Command } from 'commander';
import { registerAdminCommands } from './commands/admin.js';
import { registerAdminKeysCommands } from './commands/admin-keys.js';
import { registerConfigCommand } from './commands/config.js';
import { registerJobsCommands } from './commands/jobs.js';
import { registerServeCommand } from './commands/serve.js';
import { registerPushCommand } from './commands/push.js';
import { registerCompileCommand } from './commands/compile.js';
import { registerGoldenCommands } from './commands/golden.js';
import { registerValidateCommand } from './commands/validate.js';
import { registerPublishCommand } from './commands/publish.js';
import { registerRollbackCommand } from './commands/rollback.js';
import { registerVersionsCommand } from './commands/versions.js';
import { registerAnalyticsCommand } from './commands/analytics.js';
import { registerMcpCommand } from './commands/mcp.js';
import { registerLoginCommands } from './commands/login.js';
import { registerWebsitesCommands } from './commands/websites.js';
import { registerConnectorsCommands } from './commands/connectors.js';
import { registerWebhooksCommands } from './commands/webhooks.js';
import { registerSearchCommand } from './commands/search.js';

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
];
