/**
 * Calls to the /v1 API on the same origin. The access token lives in this module's memory only
 * (never localStorage): a reload restores the session through POST /v1/auth/refresh and its
 * HttpOnly SameSite=Strict cookie (docs/auth.md "The console").
 */

/** A failed call: the envelope's code and message, shown to the user as the API wrote them. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** The envelope's `{ok, data}` or `{ok: false, error}`; 204 answers have no body. */
interface Envelope<T> {
  ok: boolean;
  data?: T;
  error?: { code: string; message: string; details?: Record<string, unknown> };
}

let accessToken: string | undefined;

/** Replaces the token every later call sends (undefined when signed out). */
export function setAccessToken(token: string | undefined): void {
  accessToken = token;
}

/** The Authorization header of the session, for a call api-stream.ts makes itself (a streamed answer). */
export function authorizationHeader(): Record<string, string> {
  return accessToken ? { authorization: `Bearer ${accessToken}` } : {};
}

/** Called when a call is refused with 401 while a token was sent: the session may be renewed once. */
let renewSession: (() => Promise<boolean>) | undefined;
export function onUnauthenticated(renew: () => Promise<boolean>): void {
  renewSession = renew;
}

async function send<T>(method: string, path: string, body: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (accessToken) headers.authorization = `Bearer ${accessToken}`;
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
    });
  } catch {
    throw new ApiFailure(0, 'network', 'The daemon cannot be reached: check that nodectl serve is running.');
  }
  if (response.status === 204) return undefined as T;
  let envelope: Envelope<T>;
  try {
    envelope = (await response.json()) as Envelope<T>;
  } catch {
    throw new ApiFailure(response.status, 'bad_answer', `The daemon answered ${response.status} without JSON.`);
  }
  if (!response.ok || !envelope.ok) {
    const error = envelope.error ?? { code: 'unknown', message: `The daemon answered ${response.status}.` };
    throw new ApiFailure(response.status, error.code, error.message, error.details ?? {});
  }
  return envelope.data as T;
}

/** One call; a 401 on a signed-in call renews the session once and repeats it. */
export async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  try {
    return await send<T>(method, path, body);
  } catch (error) {
    const canRenew = error instanceof ApiFailure && error.status === 401 && accessToken && renewSession;
    if (!canRenew || !path.startsWith('/v1/') || path.startsWith('/v1/auth/')) throw error;
    if (!(await renewSession!())) throw error;
    return send<T>(method, path, body);
  }
}

/** One page of a list route. */
export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

export interface Organization {
  id: string;
  name: string;
  slug: string;
  plan: string;
  role: string;
  createdAt: string;
}

export interface Website {
  id: string;
  organizationId: string;
  domain: string;
  name: string;
  createdAt: string;
  verification: { state: string; method: string | null; trustTier: string; trustScore: number };
}

export interface User {
  id: string;
  email: string;
  emailVerified: boolean;
  mfaEnabled: boolean;
}

/** What login and refresh answer; the console keeps only the access token, in memory. */
export interface SessionAnswer {
  accessToken: string;
  expiresIn: number;
  user: User;
}

/** The path of a list route with its query. */
export function listPath(path: string, query: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}
