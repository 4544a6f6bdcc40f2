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

/** A failure the user can act on (bad input file, refused publish, ...): exit 1, clean message. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failure,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'CliError';
  }
}
