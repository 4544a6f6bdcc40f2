import { Option, type Command } from 'commander';
import { commandContext } from '../context.js';
import { CliError } from '../errors.js';
import { restartWithMallocSettings } from '../malloc-settings.js';

export function registerServeCommand(program: Command): void {
  program
    .command('serve')
    .description('run the daemon: the /v1 API, signed ingest, the job worker and the node files')
    .addOption(new Option('--host <host>', 'address to listen on (env NODECTL_HOST, default 127.0.0.1)'))
    .addOption(new Option('--port <port>', 'port to listen on, 0 for any free port (env NODECTL_PORT, default 8787)'))
    .action(async (_opts, command: Command) => {
      restartWithMallocSettings();
      const opts = command.opts() as { host?: string; port?: string };
      const { config } = commandContext(command, { host: opts.host, port: opts.port });
      const { startDaemon, ListenError, ControlStoreError } = await import('../../daemon/index.js');
      let daemon;
      try {
        daemon = await startDaemon(config);
      } catch (error) {
        if (error instanceof ListenError || error instanceof ControlStoreError) throw new CliError(error.message);
        throw error;
      }
      const { nodeBaseUrl } = await import('../../platform/config/index.js');
      // Commands that work as printed: `nodectl` only when that is this binary on PATH.
      const { currentNodectlCommand } = await import('../invocation.js');
      const nodectl = currentNodectlCommand();
      const address = daemon.app.server.address();
      const port = typeof address === 'object' && address ? address.port : config.settings.port;
      process.stderr.write(
        [
          `nodectl serve is listening on ${daemon.url}`,
          `  data directory: ${config.settings.dataDir}`,
          `  node files:     ${nodeBaseUrl(config.settings, port)}/<domain>/manifest.json`,
          '',
          'Try next, in another terminal:',
          `  curl ${daemon.url}/readyz`,
          `  ${nodectl} --data-dir ${config.settings.dataDir} admin user create --email you@example.com --password 'a-long-password'`,
          `  ${nodectl} --data-dir ${config.settings.dataDir} admin org create --name "My Org" --owner you@example.com`,
          '',
        ].join('\n'),
      );
      await new Promise<void>((resolve) => {
        const stop = (signal: NodeJS.Signals) => {
          process.off('SIGTERM', stop);
          process.off('SIGINT', stop);
          daemon.shutdown(signal).then(resolve, (error) => {
            process.stderr.write(`nodectl: shutdown failed: ${(error as Error).message}\n`);
            process.exitCode = 1;
            resolve();
          });
        };
        process.on('SIGTERM', stop);
        process.on('SIGINT', stop);
      });
    });
}
