/** The public face of src/platform/config: what the rest of src/ may import from it. */
export {
  ConfigError,
  describeConfig,
  isPostgresUrl,
  nodeBaseUrl,
  publicBaseUrl,
  redactUrlPassword,
  resolveConfig,
} from './config.js';
export type { ResolvedConfig } from './config.js';
export type { SettingName, Settings } from './settings.js';
export { NODECTL_VERSION, PACKAGE_ROOT } from './version.js';
