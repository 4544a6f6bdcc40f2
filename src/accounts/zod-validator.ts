import type { FastifySchemaCompiler } from 'fastify';
import type { z } from 'zod';
import { AppError, fieldProblemsFromZod } from '../errors/app-error.js';

/**
 * Lets a route declare its body as a zod schema (`schema: { body: SomeSchema }`), so the schema is
 * both what validates the request and what an API-reference generator reads from the route table.
 * A body that fails is 422 validation.failed naming each field; one that passes reaches the
 * handler parsed (defaults and transforms applied). A missing body is validated as undefined.
 */
export const zodValidatorCompiler: FastifySchemaCompiler<z.ZodType> =
  ({ schema, method, url }) =>
  (data) => {
    const parsed = schema.safeParse(data ?? undefined);
    if (parsed.success) return { value: parsed.data };
    return { error: new AppError('validation.failed', `The body of ${method} ${url} is not valid; see details.fields.`, { details: { fields: fieldProblemsFromZod(parsed.error.issues) } }) };
  };
