/** Exit codes a CI can branch on. */
export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

/** A mistake in how the command was called: exit 2, message and the valid choices, no stack. */
export class UsageError extends Error {
  readonly exitCode = EXIT.usage;
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** What a CliError carries beyond its message: the envelope's details and whether a retry may help. */
export interface CliErrorExtra {
  details?: Record<string, unknown>;
  retryable?: boolean;
}

/** A failure the user can act on (bad input file, refused publish, ...): exit 1, clean message. */
export class CliError extends Error {
  readonly details: Record<string, unknown>;
  readonly retryable: boolean;
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failure,
    readonly code?: string,
    extra: CliErrorExtra = {},
  ) {
    super(message);
    this.name = 'CliError';
    this.details = extra.details ?? {};
    this.retryable = extra.retryable ?? false;
  }
}
