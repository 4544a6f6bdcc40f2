import type { FastifySchemaCompiler, FastifySerializerCompiler } from 'fastify';
import { z } from 'zod';
import { AppError, fieldProblemsFromZod } from '../errors/index.js';

const PART_NAMES: Record<string, string> = {
  body: 'body',
  querystring: 'query',
  params: 'path parameters',
  headers: 'headers',
};

/**
 * Lets a route declare its body, query and path parameters as zod schemas (`schema: { body, querystring, params }`),
 * so one schema is both what validates the request and what the OpenAPI document is generated from
 * (src/daemon/openapi). A part that fails is 422 validation.failed naming each field (by its own name, as
 * the hand-parsed lists always did); one that passes reaches the handler parsed (defaults, coercions
 * and transforms applied). A missing body is validated as undefined.
 */
export const zodValidatorCompiler: FastifySchemaCompiler<z.ZodType> = ({ schema, method, url, httpPart }) => {
  if (z.globalRegistry.get(schema)?.[VALIDATED_IN_HANDLER] === true) return (data) => ({ value: data });
  return (data) => {
    const parsed = schema.safeParse(data ?? undefined);
    if (parsed.success) return { value: parsed.data };
    const part = PART_NAMES[httpPart ?? 'body'] ?? 'request';
    return {
      error: new AppError('validation.failed', `The ${part} of ${method} ${url} is not valid; see details.fields.`, {
        details: { fields: fieldProblemsFromZod(parsed.error.issues) },
      }),
    };
  };
};

const VALIDATED_IN_HANDLER = 'x-validated-in-handler';

/**
 * Marks a schema the handler validates itself, later than the validator stage would (a signed
 * ingest body is checked only once its signature is): it is documented like any other, and the
 * validator compiler lets the data through untouched.
 */
export function validatedInHandler<T extends z.ZodType>(schema: T): T {
  return schema.meta({ [VALIDATED_IN_HANDLER]: true });
}

/**
 * Response schemas document a route's answers (the OpenAPI document, checked against real answers
 * by test/daemon/openapi/contract.app.test.ts); they do not shape what is sent. Serialising is plain JSON, as for
 * a route that declares none, so a document drift can never turn a good answer into a 500.
 */
export const jsonSerializerCompiler: FastifySerializerCompiler<unknown> = () => (data) => JSON.stringify(data);
