import type { z } from 'zod';
import { AppError, fieldProblemsFromZod } from '../../platform/errors/app-error.js';

/**
 * Parses a request body or query with its schema; 422 validation.failed naming `what` and every bad field.
 * The organization routes declare their schemas on the route instead (./schemas.ts); routes of other
 * features that still validate in the handler call this.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success)
    throw new AppError('validation.failed', `The ${what} is not valid; see details.fields.`, {
      details: { fields: fieldProblemsFromZod(parsed.error.issues) },
    });
  return parsed.data;
}
