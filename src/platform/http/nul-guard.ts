import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors/index.js';

/** The first path parameter or query field whose value holds NUL (U+0000), as `params.id` or `query.q`. */
function nulFieldOf(request: FastifyRequest): string | undefined {
  for (const [part, values] of [
    ['params', request.params],
    ['query', request.query],
  ] as const) {
    if (values === null || typeof values !== 'object') continue;
    for (const [name, value] of Object.entries(values as Record<string, unknown>)) {
      const texts = Array.isArray(value) ? value : [value];
      if (texts.some((text) => typeof text === 'string' && text.includes('\u0000'))) return `${part}.${name}`;
    }
  }
  return undefined;
}

/**
 * Refuses (422 validation.failed) an id or value of the path or query string that holds NUL
 * (`%00` decoded): SQLite text, file names and log lines cut or split at it, so no route should
 * ever see one. Bodies are checked by their schemas (src/platform/contract clientString).
 */
export function refuseNulInRequest(request: FastifyRequest): void {
  const field = nulFieldOf(request);
  if (field === undefined) return;
  throw new AppError('validation.failed', `${field} contains NUL (%00): remove it; no id or value holds one.`, {
    details: { fields: [{ path: field, message: 'must not contain NUL (\\u0000)' }] },
  });
}
