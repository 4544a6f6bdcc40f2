import { z } from 'zod';

const compiledSchemas = new WeakMap<z.ZodType, z.ZodType>();

/**
 * `schema` compiled ahead of time by zod (z.compile), once per process: the same verdicts, faster
 * on valid input (docs/decisions.md). Its `validate(value)` says only whether the value passes;
 * callers explain a failure with the schema's own safeParse.
 */
export function compiledSchema(schema: z.ZodType): z.ZodType {
  let compiled = compiledSchemas.get(schema);
  if (compiled === undefined) compiledSchemas.set(schema, (compiled = z.compile(schema)));
  return compiled;
}
