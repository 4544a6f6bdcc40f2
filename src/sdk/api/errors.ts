import type { ErrorCode } from '../../platform/errors/registry.js';

/**
 * Codes of failures that have no answer of the API behind them: `network.error` when no HTTP
 * answer came back (refused, reset, timed out, bad host), `response.invalid` when the answer is
 * not the contract envelope (another service at that address).
 */
export type ClientErrorCode = 'network.error' | 'response.invalid';

/**
 * A failed call of the management API: the contract envelope's error (code, message, details,
 * retryable), the HTTP status and the request id the daemon logged it under; status 0 when no
 * answer came back.
 */
export class ApiError extends Error {
  readonly code: ErrorCode | ClientErrorCode;
  readonly status: number;
  readonly details: Record<string, unknown>;
  readonly retryable: boolean;
  /** X-Request-Id of the answer (meta.requestId); undefined when none came back. */
  readonly requestId: string | undefined;
  /** Retry-After of the answer, in seconds, when it sent one (429, retryable 409 and 503). */
  readonly retryAfterSeconds: number | undefined;
  /** Attempts the client made, retries included; this error is the last one's. */
  readonly attempts: number;

  constructor(init: {
    code: ErrorCode | ClientErrorCode;
    message: string;
    status: number;
    details?: Record<string, unknown>;
    retryable?: boolean;
    requestId?: string;
    retryAfterSeconds?: number;
    attempts?: number;
    cause?: unknown;
  }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'ApiError';
    this.code = init.code;
    this.status = init.status;
    this.details = init.details ?? {};
    this.retryable = init.retryable ?? false;
    this.requestId = init.requestId;
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.attempts = init.attempts ?? 1;
  }
}

/** True for an ApiError (also one from another copy of this module). */
export function isApiError(error: unknown): error is ApiError {
  return (
    error instanceof ApiError ||
    (error instanceof Error &&
      error.name === 'ApiError' &&
      typeof (error as { code?: unknown }).code === 'string' &&
      typeof (error as { status?: unknown }).status === 'number')
  );
}
