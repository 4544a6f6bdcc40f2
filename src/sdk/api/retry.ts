import type { ApiError } from './errors.js';

/**
 * When the typed client repeats a call, and how long it waits first. A call is repeated only
 * when doing it twice cannot do the work twice:
 * - any method the daemon answered 429 (quota.rate_limited: refused before the handler ran);
 * - any method whose request never reached the daemon: the connection was refused, the host
 *   did not resolve or could not be reached, or connecting timed out (nothing was sent);
 * - GET on any other network failure (reset, closed) and on an answer whose envelope says
 *   `retryable: true` (503 service.unavailable).
 * An answer that is not the envelope (response.invalid) counts as retryable only when a proxy in
 * front of the daemon sent it with 429, 502, 503 or 504, under the same method rules. A code the
 * registry marks not retryable (billing.unconfigured, internal.error, ...) is never repeated, nor
 * any other response.invalid, nor a call that used up its own timeoutMs: that timeout is the
 * caller's budget for one attempt.
 */
export interface RetryPolicy {
  /** Retries after the first attempt; 0 turns retrying off. */
  readonly retries: number;
  /** Backoff before retry n: a random wait between half and all of baseMs * 2^(n-1). */
  readonly baseMs: number;
  /** The longest wait, Retry-After included; a Retry-After asking for more is not waited for. */
  readonly maxDelayMs: number;
}

export const DEFAULT_API_RETRY: RetryPolicy = { retries: 2, baseMs: 500, maxDelayMs: 30_000 };

/** Network failures that happen before a byte of the request is written. */
const NOTHING_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);
/** The call's own clocks (timeoutMs) ran out. */
const OWN_TIMEOUTS = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** The system or undici code of a network failure; an AggregateError (happy eyeballs) answers with its first. */
export function networkCodeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, errors, cause } = error as { code?: unknown; errors?: unknown; cause?: unknown };
  if (typeof code === 'string') return code;
  if (Array.isArray(errors) && errors.length > 0) return networkCodeOf(errors[0]);
  return cause === undefined ? undefined : networkCodeOf(cause);
}

/** Whether repeating `method` after `error` is safe (see RetryPolicy). */
export function isSafeToRetry(method: string, error: ApiError): boolean {
  if (error.code === 'network.error') {
    const code = networkCodeOf(error.cause);
    if (code !== undefined && NOTHING_SENT.has(code)) return true;
    return method === 'GET' && !(code !== undefined && OWN_TIMEOUTS.has(code));
  }
  if (!error.retryable) return false;
  return error.status === 429 || method === 'GET';
}

/**
 * The wait before retry number `retry` (1 = the first) after `error`: the answer's Retry-After
 * when it sent one, else capped exponential backoff with equal jitter. Undefined when the
 * Retry-After asks for more than maxDelayMs: the call then fails with that answer at once,
 * and ApiError.retryAfterSeconds says when to come back.
 */
export function retryDelayMs(
  policy: RetryPolicy,
  retry: number,
  error: ApiError,
  random: () => number = Math.random,
): number | undefined {
  if (error.retryAfterSeconds !== undefined) {
    const askedMs = error.retryAfterSeconds * 1000;
    return askedMs <= policy.maxDelayMs ? askedMs : undefined;
  }
  const ceiling = Math.min(policy.maxDelayMs, policy.baseMs * 2 ** (retry - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/** The policy of the client's options, checked: a count or delay that is not a whole number from 0 is a programming error. */
export function retryPolicyOf(options: {
  retries?: number;
  retryBaseMs?: number;
  maxRetryDelayMs?: number;
}): RetryPolicy {
  const policy = {
    retries: options.retries ?? DEFAULT_API_RETRY.retries,
    baseMs: options.retryBaseMs ?? DEFAULT_API_RETRY.baseMs,
    maxDelayMs: options.maxRetryDelayMs ?? DEFAULT_API_RETRY.maxDelayMs,
  };
  for (const [name, value] of [
    ['retries', policy.retries],
    ['retryBaseMs', policy.baseMs],
    ['maxRetryDelayMs', policy.maxDelayMs],
  ] as const) {
    if (!Number.isSafeInteger(value) || value < 0)
      throw new RangeError(`createApiClient: ${name} must be a whole number from 0, got ${value}`);
  }
  return policy;
}
