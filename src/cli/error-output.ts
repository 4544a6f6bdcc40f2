/**
 * How a failed command reports itself: the error envelope of the API (`{ ok: false, error: { code,
 * message, details, retryable } }`) on stdout under --json, else `nodectl: [code] message` on
 * stderr followed by one `  <path>: <message>` line per field of details.fields.
 */

/** The CLI's view of a failure, whatever threw it. */
export interface CliFailure {
  /** A contract error code, or `cli.usage` (bad call, exit 2), `cli.failure` (no code) or `cli.internal` (a bug). */
  code: string;
  message: string;
  details: Record<string, unknown>;
  retryable: boolean;
  exitCode: number;
  /** Whether the text form shows the code in brackets (usage errors read better without it). */
  showCode: boolean;
  /** Already on stderr (commander prints its own usage errors). */
  printed?: boolean;
}

/** The error envelope --json prints, the same shape the API answers with. */
export function errorEnvelope(failure: CliFailure): {
  ok: false;
  error: { code: string; message: string; details: Record<string, unknown>; retryable: boolean };
} {
  return {
    ok: false,
    error: { code: failure.code, message: failure.message, details: failure.details, retryable: failure.retryable },
  };
}

/** details.fields as `{ path, message }` pairs; anything not of that shape is left out. */
export function fieldProblemsOf(details: Record<string, unknown>): Array<{ path: string; message: string }> {
  const fields = details.fields;
  if (!Array.isArray(fields)) return [];
  return fields.flatMap((f: unknown) => {
    if (typeof f !== 'object' || f === null) return [];
    const { path, message } = f as { path?: unknown; message?: unknown };
    return typeof message === 'string'
      ? [{ path: typeof path === 'string' && path !== '' ? path : '(root)', message }]
      : [];
  });
}

/** The text form: the headline, then one line per invalid field saying what to fix. */
export function formatFailureText(failure: CliFailure): string {
  const head = `nodectl: ${failure.showCode ? `[${failure.code}] ` : ''}${failure.message}`;
  const fields = fieldProblemsOf(failure.details).map((f) => `  ${f.path}: ${f.message}`);
  return [head, ...fields].join('\n') + '\n';
}
