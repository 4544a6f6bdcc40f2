/** Retry policy of the reference client (docs/contract.md#idempotency: 3 attempts, base 500 ms, cap 30 s). */
export interface RetryPolicy {
  /** Attempts in all, the first included. Default 3. */
  maxAttempts: number;
  /** First backoff in ms; doubles per attempt. Default 500. */
  baseMs: number;
  /** Longest wait in ms, Retry-After included. Default 30000. */
  capMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 3, baseMs: 500, capMs: 30_000 };

/**
 * 5xx, 408 (request.timeout: the body did not arrive in time), 429 and network errors (status 0)
 * are retried; everything else is final.
 */
export function isRetryableStatus(status: number): boolean {
  return status === 0 || status === 408 || status === 429 || status >= 500;
}

/**
 * Wait before retry number `attempt` (1 = first retry): exponential with equal jitter, or the
 * server's Retry-After when it gave one, never beyond the cap.
 */
export function retryDelayMs(
  policy: RetryPolicy,
  attempt: number,
  retryAfterSeconds?: number,
  random: () => number = Math.random,
): number {
  if (retryAfterSeconds !== undefined && Number.isFinite(retryAfterSeconds) && retryAfterSeconds >= 0)
    return Math.min(policy.capMs, retryAfterSeconds * 1000);
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/** Reads Retry-After as seconds (delta-seconds or an HTTP date). */
export function parseRetryAfter(value: string | string[] | undefined, nowMs = Date.now()): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined || v.trim() === '') return undefined;
  if (/^\d+$/.test(v.trim())) return Number(v.trim());
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - nowMs) / 1000));
}
