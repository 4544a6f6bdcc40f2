import { request } from 'undici';
import { CliError } from './errors.js';
import { storedSessionPath, writeStoredSession, removeStoredSession, type StoredSession } from './stored-session.js';

/** One answer of a /v1/auth route: the envelope's data, or its error. */
export interface AuthAnswer<T = any> {
  status: number;
  data?: T;
  error?: { code: string; message: string; details?: Record<string, unknown> };
}

/** Calls a daemon's JSON route as the CLI user; a daemon that cannot be reached is a CliError. */
export async function callAuthRoute<T = any>(
  baseUrl: string,
  path: string,
  options: { body?: unknown; accessToken?: string } = {},
): Promise<AuthAnswer<T>> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.accessToken) headers.authorization = `Bearer ${options.accessToken}`;
  let res: Awaited<ReturnType<typeof request>>;
  try {
    res = await request(new URL(path, baseUrl), {
      method: 'POST',
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      headersTimeout: 30_000,
      bodyTimeout: 30_000,
    });
  } catch (error) {
    throw new CliError(
      `cannot reach ${baseUrl}: ${(error as Error).message}. Check --url and that nodectl serve runs there.`,
    );
  }
  const text = await res.body.text();
  if (res.statusCode === 204) return { status: 204 };
  let envelope: { ok?: boolean; data?: T; error?: AuthAnswer['error'] } | undefined;
  try {
    envelope = JSON.parse(text);
  } catch {
    envelope = undefined;
  }
  if (!envelope || typeof envelope.ok !== 'boolean')
    throw new CliError(`${baseUrl} answered ${res.statusCode} without a nodectl envelope; is --url a nodectl daemon?`);
  return envelope.ok
    ? { status: res.statusCode, data: envelope.data }
    : { status: res.statusCode, error: envelope.error };
}

/**
 * Trades the stored refresh token for an access token (15 minutes) and stores the rotated refresh
 * token. For the commands that call the API as the signed-in user. Run them one at a time: two
 * refreshes with the same token read as theft and end the session (docs/auth.md). A session that
 * ended is removed, and the error says to sign in again.
 */
export async function refreshStoredSession(
  session: StoredSession,
  path = storedSessionPath(),
): Promise<{ accessToken: string; session: StoredSession }> {
  const answer = await callAuthRoute<{ accessToken: string; refreshToken: string }>(session.url, '/v1/auth/refresh', {
    body: { refreshToken: session.refreshToken },
  });
  if (answer.error) {
    if (answer.status === 401) removeStoredSession(path);
    throw new CliError(
      `${answer.error.message} (${session.url}; run nodectl login to sign in again)`,
      1,
      answer.error.code,
    );
  }
  const next = { ...session, refreshToken: answer.data!.refreshToken, savedAt: new Date().toISOString() };
  writeStoredSession(next, path);
  return { accessToken: answer.data!.accessToken, session: next };
}
