import type { Command } from 'commander';
import { resolveConfig, type ResolvedConfig, type SettingName } from '../platform/config/index.js';
import { createOutput, type Output } from './output.js';
import { cliIo } from './io.js';

export interface CommandContext {
  readonly config: ResolvedConfig;
  readonly out: Output;
}

/**
 * Builds what every command needs from the global flags (--data-dir, --config, --json) and the
 * command's own flags that override settings (e.g. serve's --host and --port).
 */
export function commandContext(
  command: Command,
  settingFlags: Partial<Record<SettingName, unknown>> = {},
): CommandContext {
  const globals = command.optsWithGlobals() as { dataDir?: string; config?: string; json?: boolean };
  const config = resolveConfig({
    flags: { dataDir: globals.dataDir, ...settingFlags },
    configFile: globals.config,
    env: cliIo().env,
  });
  return { config, out: createOutput(Boolean(globals.json)) };
}
