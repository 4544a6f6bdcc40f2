import type { z } from 'zod';

/**
 * What the queue needs of a job kind: its name and payload schema. A full definition (handler,
 * lane, schedule: define.ts) is one; the queue sits below the services the handlers use, so it
 * knows only this much.
 */
export interface JobKind<S extends z.ZodType = z.ZodType> {
  readonly kind: string;
  readonly payload: S;
}

/** Thrown when a payload does not match its kind's schema; the message names the kind and every bad field. */
export class JobPayloadError extends Error {
  constructor(
    readonly kind: string,
    issues: z.ZodError['issues'],
  ) {
    super(`${kind} payload is invalid: ${describeIssues(issues)}`);
    this.name = 'JobPayloadError';
  }
}

/** Parses a payload with its kind's schema; throws JobPayloadError. */
export function parseJobPayload<S extends z.ZodType>(job: JobKind<S>, payload: unknown): z.output<S> {
  const parsed = job.payload.safeParse(payload);
  if (!parsed.success) throw new JobPayloadError(job.kind, parsed.error.issues);
  return parsed.data;
}

/** `path: message; ...`, the zod issues of a payload in one line. */
export function describeIssues(issues: z.ZodError['issues']): string {
  return issues.map((i) => `${i.path.join('.') || '(payload)'}: ${i.message}`).join('; ');
}
