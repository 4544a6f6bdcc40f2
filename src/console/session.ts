import { ApiFailure, call, onUnauthenticated, setAccessToken, type SessionAnswer, type User } from './api.js';

/**
 * The signed-in user, or undefined. The access token is kept by api.ts in memory; the refresh
 * token only ever sits in the HttpOnly svc_refresh cookie, which script cannot read.
 */
type Listener = (user: User | undefined) => void;
const listeners = new Set<Listener>();
let current: User | undefined;
let renewTimer: ReturnType<typeof setTimeout> | undefined;
/** One refresh at a time: two with the same cookie read as a stolen token and end the session. */
let refreshing: Promise<boolean> | undefined;

export function currentUser(): User | undefined {
  return current;
}

export function subscribe(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function adopt(answer: SessionAnswer | undefined): void {
  clearTimeout(renewTimer);
  setAccessToken(answer?.accessToken);
  current = answer?.user;
  // Renew a minute before the access token expires, so a page left open stays signed in.
  if (answer) renewTimer = setTimeout(() => void refresh(), Math.max(10, answer.expiresIn - 60) * 1000);
  for (const listener of listeners) listener(current);
}

/**
 * Tabs of the console share the cookie: a lock of the browser (Web Locks) keeps their refreshes
 * one at a time too, so each presents the cookie the previous one set.
 */
function oneTabAtATime<T>(work: () => Promise<T>): Promise<T> {
  // Web Locks exist in secure contexts only (https, or loopback); elsewhere each tab goes alone.
  const locks = navigator.locks as LockManager | undefined;
  return locks ? (locks.request('nodectl-console-refresh', work) as Promise<T>) : work();
}

/** Trades the refresh cookie for a new access token; false when there is no session to renew. */
export function refresh(): Promise<boolean> {
  refreshing ??= oneTabAtATime(() => call<SessionAnswer>('POST', '/v1/auth/refresh', {}))
    .then((answer) => (adopt(answer), true))
    .catch((error: unknown) => {
      if (error instanceof ApiFailure && error.status === 0) throw error;
      adopt(undefined);
      return false;
    })
    .finally(() => (refreshing = undefined));
  return refreshing;
}

onUnauthenticated(refresh);

/** A second factor as login takes it: the authenticator's code, or one recovery code. */
export type SecondFactor = { totp: string } | { recoveryCode: string };

/** Signs in; throws ApiFailure auth.mfa_required when the account needs its second factor. */
export async function signIn(email: string, password: string, factor?: SecondFactor): Promise<void> {
  adopt(await call<SessionAnswer>('POST', '/v1/auth/login', { email, password, ...factor }));
}

/** Forgets a session the daemon already ended (a password change ends them all), without a call. */
export function forgetSession(): void {
  adopt(undefined);
}

/**
 * Ends this session on the daemon (its cookie is cleared) and forgets the token here; `everywhere`
 * ends every session of the user (POST /v1/auth/logout-all: other browsers and the CLI sign in again).
 */
export async function signOut(options: { everywhere?: boolean } = {}): Promise<void> {
  try {
    await call<void>('POST', options.everywhere ? '/v1/auth/logout-all' : '/v1/auth/logout');
  } finally {
    adopt(undefined);
  }
}
