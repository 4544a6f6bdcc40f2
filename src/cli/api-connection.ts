import type { Command } from 'commander';
import { z } from 'zod';
import type { ApiClient, ApiRetry } from '../sdk/api/index.js';
import { CliError, EXIT, UsageError } from './errors.js';
import { PROJECT_FILE, readProjectFile } from './project-file.js';
import type { StoredSession } from './stored-session.js';
import { cliIo } from './io.js';

/** --url and --api-key as commander gives them. */
export interface ApiFlags {
  url?: string;
  apiKey?: string;
}

export const UrlSchema = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL such as http://127.0.0.1:8787' });
const ApiKeySchema = z
  .string()
  .regex(
    /^nk_[a-z]+_[0-9A-Za-z]{32}$/,
    'must be an API key: nk_live_ and 32 letters and digits (nodectl admin api-key create, or POST /v1/organizations/:id/api-keys)',
  );

/** Where a value came from, in the words of the message that names it. */
type Source =
  | '--url'
  | 'NODECTL_URL'
  | `${typeof PROJECT_FILE} (url)`
  | 'the nodectl login session'
  | '--api-key'
  | 'NODECTL_API_KEY';

function validated(schema: z.ZodType<string>, value: string, source: Source): string {
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    throw new UsageError(
      `${source} ${parsed.error.issues[0]?.message ?? 'is not valid'} (got ${JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}...` : value)})`,
    );
  return parsed.data;
}

/** Declares --url and --api-key on a command that can call the management API. */
export function addApiOptions(command: Command, remoteOnly = false): Command {
  const where = remoteOnly ? '' : ' instead of the local data directory';
  return command
    .option(
      '--url <url>',
      `call the management API of this daemon${where} (env NODECTL_URL, else the nodectl login session)`,
    )
    .option(
      '--api-key <key>',
      'organization API key for the API (env NODECTL_API_KEY, else the nodectl login session)',
    );
}

/**
 * Whether a command that also has a local form calls the API: --url or --api-key given,
 * NODECTL_URL or NODECTL_API_KEY set, or a url in the project file (nodectl.json, `nodectl init`).
 * A session from `nodectl login` alone never turns a local command into a remote one; it only
 * supplies what the flags and the environment leave out.
 */
export function apiRequested(flags: ApiFlags, env: NodeJS.ProcessEnv = cliIo().env): boolean {
  return (
    flags.url !== undefined ||
    flags.apiKey !== undefined ||
    Boolean(env.NODECTL_URL) ||
    Boolean(env.NODECTL_API_KEY) ||
    readProjectFile() !== null
  );
}

/** What a command calls the API with. */
export interface ApiConnection {
  readonly client: ApiClient;
  /** The daemon's origin. */
  readonly url: string;
  readonly urlSource: Source;
  readonly credentialSource: Source;
}

export interface ConnectOptions {
  env?: NodeJS.ProcessEnv;
  /** The stored session's file; default storedSessionPath(env). */
  sessionPath?: string;
}

/**
 * Resolves the daemon and the credential, each by flag, then environment, then the session
 * `nodectl login` stored, validated with zod (a bad one exits 2), and builds the typed client.
 * The session's refresh token is only ever sent to the daemon it was issued by: a URL from a flag
 * or the environment that names another daemon needs an API key.
 */
export async function connectApi(flags: ApiFlags, options: ConnectOptions = {}): Promise<ApiConnection> {
  const env = options.env ?? cliIo().env;
  const projectUrl = flags.url === undefined && !env.NODECTL_URL ? readProjectFile()?.url : undefined;
  const flagUrl = flags.url ?? (env.NODECTL_URL || undefined) ?? projectUrl;
  const urlSource: Source | undefined =
    flags.url !== undefined
      ? '--url'
      : env.NODECTL_URL
        ? 'NODECTL_URL'
        : projectUrl !== undefined
          ? `${PROJECT_FILE} (url)`
          : undefined;
  const key = flags.apiKey ?? (env.NODECTL_API_KEY || undefined);
  const keySource: Source | undefined =
    flags.apiKey !== undefined ? '--api-key' : env.NODECTL_API_KEY ? 'NODECTL_API_KEY' : undefined;
  const url = flagUrl === undefined ? undefined : new URL(validated(UrlSchema, flagUrl, urlSource!)).origin;
  const apiKey = key === undefined ? undefined : validated(ApiKeySchema, key, keySource!);

  let session: StoredSession | undefined;
  let sessionPath: string | undefined;
  if (url === undefined || apiKey === undefined) {
    const stored = await import('./stored-session.js');
    sessionPath = options.sessionPath ?? stored.storedSessionPath(env);
    session = stored.readStoredSession(sessionPath);
  }
  const daemon = url ?? (session ? new URL(session.url).origin : undefined);
  if (daemon === undefined)
    throw new UsageError(
      'no daemon to call: give --url <http(s)://host:port> (or NODECTL_URL), or sign in once with nodectl login --url <daemon> --email <you>',
    );
  const { createApiClient } = await import('../sdk/api/index.js');
  const { DEFAULT_API_RETRY } = await import('../sdk/api/index.js');
  // The client retries what is safe to repeat (docs/api-client.md); say so, or a wait looks like a hang.
  const onRetry = ({ retry, delayMs, error }: ApiRetry) =>
    cliIo().stderr.write(
      `nodectl: [${error.code}] ${error.message}; retry ${retry} of ${DEFAULT_API_RETRY.retries} in ${(delayMs / 1000).toFixed(1)} s\n`,
    );
  if (apiKey !== undefined)
    return {
      client: createApiClient({ url: daemon, credential: { apiKey }, onRetry }),
      url: daemon,
      urlSource: urlSource ?? 'the nodectl login session',
      credentialSource: keySource!,
    };
  if (!session)
    throw new UsageError(
      `no credential for ${daemon}: give --api-key <key> (or NODECTL_API_KEY), or sign in with nodectl login --url ${daemon} --email <you>`,
    );
  if (new URL(session.url).origin !== daemon)
    throw new UsageError(
      `the nodectl login session is for ${session.url}, not ${daemon}: give --api-key <key> (or NODECTL_API_KEY) for ${daemon}, or sign in there with nodectl login --url ${daemon}`,
    );
  const { refreshStoredSession } = await import('./auth-api.js');
  const { accessToken } = await refreshStoredSession(session, sessionPath);
  return {
    client: createApiClient({ url: daemon, credential: { accessToken }, onRetry }),
    url: daemon,
    urlSource: urlSource ?? 'the nodectl login session',
    credentialSource: 'the nodectl login session',
  };
}

/**
 * A request body built from flags, checked with the route's own body schema before anything is
 * sent, so a bad value is bad usage (exit 2) naming the flag it came from (`flags`: body field to
 * flag) in the words the route would answer with. Resolves to the body as given.
 */
export function validatedBody<T>(schema: z.ZodType, body: T, flags: Record<string, string>): T {
  const parsed = schema.safeParse(body);
  if (parsed.success) return body;
  const issue = parsed.error.issues[0]!;
  const field = issue.path[0];
  const flag = typeof field === 'string' ? flags[field] : undefined;
  throw new UsageError(flag !== undefined ? `${flag} ${issue.message}` : issue.message);
}

/**
 * An API failure as the CLI reports it: `nodectl: [code] message (request <id>)`, exit 1, or the
 * exit code `exitFor` gives the code (publish's gates exit 3). Anything else is rethrown as is.
 */
export async function reportApiFailure(
  error: unknown,
  exitFor: (code: string) => number = () => EXIT.failure,
): Promise<never> {
  const { isApiError } = await import('../sdk/api/index.js');
  if (!isApiError(error)) throw error;
  // A network failure with a request id reached the daemon: the hint about --url would mislead.
  if (error.code === 'network.error' && error.requestId === undefined)
    throw new CliError(
      `${error.message}; check --url (or NODECTL_URL) and that nodectl serve runs there`,
      EXIT.failure,
      error.code,
      { details: error.details, retryable: error.retryable },
    );
  throw new CliError(
    `${error.message}${error.requestId ? ` (request ${error.requestId})` : ''}`,
    exitFor(error.code),
    error.code,
    { details: error.details, retryable: error.retryable },
  );
}

/** One call over the management API with the flags' connection; an API failure is reported as reportApiFailure does. */
export async function callApi<T>(flags: ApiFlags, call: (client: ApiClient) => Promise<T>): Promise<T> {
  const { client } = await connectApi(flags);
  return call(client).catch(reportApiFailure);
}

/** Every item of a paginated list over the management API, 100 a request; failures as callApi. */
export async function listAllOverApi<T>(
  flags: ApiFlags,
  page: (
    client: ApiClient,
    query: { limit: number; cursor: string | undefined },
  ) => Promise<{ items: T[]; next_cursor: string | null }>,
): Promise<T[]> {
  const { collectPages } = await import('../sdk/api/index.js');
  return callApi(flags, (client) => collectPages((cursor) => page(client, { limit: 100, cursor })));
}
