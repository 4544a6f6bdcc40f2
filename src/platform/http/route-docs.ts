import { z } from 'zod';
import type { ErrorCode } from '../errors/index.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The error codes this route answers beyond those every route of its kind can answer (access,
     * validation, rate limits, transport; src/daemon/openapi/route-errors.ts adds those). The OpenAPI
     * document lists them per status, and the contract test fails on an answer with a code the
     * document does not list for the route.
     */
    errors?: readonly ErrorCode[];
    /**
     * The route reads or writes one website's graph file: the website of the `:id` parameter, or
     * of the connector the signed request claims. With several daemons the request is forwarded to
     * the daemon that writes that graph (src/ingest/ownership, docs/scaling.md).
     */
    graphOf?: 'website' | 'connector';
  }
}

/**
 * Zod builders for the contract envelope (docs/contract.md#envelope) in route response schemas:
 * `schema: { response: { 200: dataEnvelope(WebsiteSchema) } }`. They document answers; sending
 * stays plain JSON (src/platform/http/zod-compilers.ts). Error answers are documented from config.errors.
 */
const RequestMetaSchema = z.object({ requestId: z.string() });

/** `{ ok: true, data, meta }`: what sendData sends. */
export function dataEnvelope<T extends z.ZodType>(data: T) {
  return z.object({ ok: z.literal(true), data, meta: RequestMetaSchema });
}

/** A list answer's data: one page of items and the cursor of the next page (null on the last). */
export function listPage<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), next_cursor: z.string().nullable() });
}

/** `{ ok: true, data: { items, next_cursor }, meta }`: what sendData(pageOf(...)) sends. */
export function listEnvelope<T extends z.ZodType>(item: T) {
  return dataEnvelope(listPage(item));
}

/** A 204 answer: no body. */
export const NoContent = z.undefined().describe('No content');
