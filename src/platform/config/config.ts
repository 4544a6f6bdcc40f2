import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { SETTINGS, type SettingName, type Settings } from './settings.js';

export type SettingSource = 'flag' | 'env' | 'file' | 'default';

export interface ResolvedConfig {
  readonly settings: Settings;
  readonly sources: { readonly [K in SettingName]: SettingSource };
  /** The config file that was read, if any. */
  readonly file: string | null;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export interface ResolveConfigInput {
  /** Values given as command-line flags (undefined means not given). */
  flags?: Partial<Record<SettingName, unknown>>;
  env?: NodeJS.ProcessEnv;
  /** Explicit config file (--config / NODECTL_CONFIG); otherwise <dataDir>/config.json if present. */
  configFile?: string;
}

const FileSchema = z.strictObject(
  Object.fromEntries(Object.keys(SETTINGS).map((name) => [name, z.unknown().optional()])) as Record<
    SettingName,
    z.ZodOptional<z.ZodUnknown>
  >,
);

/**
 * Resolves every setting as flag, then NODECTL_* environment, then config file, then default;
 * validates each with its zod schema and freezes the result. A bad value names the setting,
 * where it came from and what is accepted.
 */
export function resolveConfig(input: ResolveConfigInput = {}): ResolvedConfig {
  const env = input.env ?? process.env;
  const flags = input.flags ?? {};
  const explicitFile = input.configFile ?? env.NODECTL_CONFIG;
  const layers =
    (fileValues: Record<string, unknown>) =>
    (name: SettingName): [unknown, SettingSource] => {
      if (flags[name] !== undefined) return [flags[name], 'flag'];
      const envValue = env[SETTINGS[name].env];
      if (envValue !== undefined && envValue !== '') return [envValue, 'env'];
      if (fileValues[name] !== undefined) return [fileValues[name], 'file'];
      return [SETTINGS[name].default, 'default'];
    };

  // The data directory decides where the default config file is, so resolve it without a file first.
  const preDataDir = String(layers({})('dataDir')[0]);
  const file = explicitFile
    ? resolve(explicitFile)
    : existsSync(join(preDataDir, 'config.json'))
      ? resolve(preDataDir, 'config.json')
      : null;
  const fileValues = file ? readConfigFile(file) : {};
  const pick = layers(fileValues);

  const settings: Record<string, unknown> = {};
  const sources: Record<string, SettingSource> = {};
  for (const name of Object.keys(SETTINGS) as SettingName[]) {
    const [raw, source] = pick(name);
    const parsed = SETTINGS[name].schema.safeParse(raw);
    if (!parsed.success) {
      const where =
        source === 'flag'
          ? `flag --${kebab(name)}`
          : source === 'env'
            ? `environment variable ${SETTINGS[name].env}`
            : source === 'file'
              ? `config file ${file}`
              : 'default';
      throw new ConfigError(
        `Invalid value for ${name} (from ${where}): ${JSON.stringify(raw)}. ${parsed.error.issues.map((i) => i.message).join('; ')}`,
      );
    }
    settings[name] = parsed.data;
    sources[name] = source;
  }
  settings.dataDir = resolve(String(settings.dataDir));
  settings.controlStore = resolveControlStore(settings.controlStore as string | undefined, settings.dataDir as string, {
    source: sources.controlStore!,
    file,
  });
  // The one setting before job lanes still works: it sizes the ingest lane, which ran those jobs.
  if (settings.workerConcurrency !== undefined && sources.jobLaneIngestConcurrency === 'default') {
    settings.jobLaneIngestConcurrency = settings.workerConcurrency;
    sources.jobLaneIngestConcurrency = sources.workerConcurrency!;
  }
  return Object.freeze({
    settings: Object.freeze(settings) as Settings,
    sources: Object.freeze(sources) as ResolvedConfig['sources'],
    file,
  });
}

/** A postgres:// or postgresql:// URL: the control store is PostgreSQL. */
export function isPostgresUrl(value: string): boolean {
  return /^postgres(ql)?:\/\//i.test(value);
}

/**
 * The control store: a PostgreSQL URL as given, else the data directory's control.sqlite (the
 * default; a SQLite file elsewhere is refused, for every control table is still read there).
 */
function resolveControlStore(
  value: string | undefined,
  dataDir: string,
  from: { source: SettingSource; file: string | null },
): string {
  const sqlite = join(dataDir, 'control.sqlite');
  if (value === undefined) return sqlite;
  if (isPostgresUrl(value)) return value;
  if (resolve(value) === sqlite) return sqlite;
  const where =
    from.source === 'env'
      ? `environment variable ${SETTINGS.controlStore.env}`
      : from.source === 'file'
        ? `config file ${from.file}`
        : `flag --${kebab('controlStore')}`;
  throw new ConfigError(
    `Invalid value for controlStore (from ${where}): ${JSON.stringify(value)}. The SQLite control store is control.sqlite in the data directory (${sqlite}): to move it, set dataDir; to share state between daemons, give a postgres:// URL.`,
  );
}

/** A URL with its password masked, for `nodectl config` and logs; anything else as given. */
export function redactUrlPassword(value: string): string {
  if (!URL.canParse(value)) return value;
  const url = new URL(value);
  if (url.password === '') return value;
  url.password = '********';
  return url.toString();
}

function readConfigFile(file: string): Record<string, unknown> {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ConfigError(`Cannot read config file ${file}: ${(error as Error).message}`);
  }
  const parsed = FileSchema.safeParse(raw);
  if (!parsed.success) {
    const known = Object.keys(SETTINGS).join(', ');
    throw new ConfigError(
      `Config file ${file} is not valid: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}. Known settings: ${known}.`,
    );
  }
  return parsed.data as Record<string, unknown>;
}

export function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase());
}

/** Settings as `nodectl config` shows them: secrets masked. */
export function describeConfig(
  config: ResolvedConfig,
): Array<{ name: SettingName; value: unknown; source: SettingSource; env: string }> {
  return (Object.keys(SETTINGS) as SettingName[]).map((name) => {
    const value = config.settings[name];
    const masked =
      SETTINGS[name].secret && value !== undefined
        ? '********'
        : name === 'controlStore'
          ? redactUrlPassword(String(value))
          : value;
    return { name, value: masked ?? null, source: config.sources[name], env: SETTINGS[name].env };
  });
}

/** Public origin of the API for this config. */
export function publicBaseUrl(settings: Settings, listenPort?: number): string {
  if (settings.publicBaseUrl) return settings.publicBaseUrl.replace(/\/$/, '');
  const host = settings.host.includes(':') ? `[${settings.host}]` : settings.host;
  return `http://${host}:${listenPort ?? settings.port}`;
}

export function nodeBaseUrl(settings: Settings, listenPort?: number): string {
  return (settings.nodeBaseUrl ?? `${publicBaseUrl(settings, listenPort)}/nodes`).replace(/\/$/, '');
}
