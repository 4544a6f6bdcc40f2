import { ERROR_CODES, type ErrorCode } from './registry.js';

/** A failure the caller can act on: it carries a contract error code, never a stack to the client. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly retryable: boolean;
  readonly details: Record<string, unknown> | undefined;
  /** Seconds a client should wait before retrying (sets Retry-After). */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { details?: Record<string, unknown>; retryAfterSeconds?: number; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.retryable = ERROR_CODES[code].retryable;
    this.details = options.details;
    this.retryAfterSeconds =
      options.retryAfterSeconds ?? (this.retryable && (this.status === 429 || this.status === 503) ? 1 : undefined);
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

/** One entry of details.fields[] for validation.failed. */
export interface FieldProblem {
  path: string;
  message: string;
}

/** Turns zod issues into the contract's details.fields[] shape. */
export function fieldProblemsFromZod(
  issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>,
  prefix = '',
): FieldProblem[] {
  return issues.map((issue) => ({
    path: [prefix, ...issue.path.map(String)].filter((part) => part !== '').join('.') || '(root)',
    message: issue.message,
  }));
}

export function validationError(message: string, fields: FieldProblem[]): AppError {
  return new AppError('validation.failed', message, { details: { fields } });
}
