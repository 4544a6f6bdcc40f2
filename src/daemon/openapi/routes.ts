import { z } from 'zod';
import type { RoutePlugin } from '../../platform/app/route-plugin.js';

const OpenApiDocumentSchema = z.looseObject({
  openapi: z.string(),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.unknown()),
});

/**
 * GET /v1/openapi.json: the OpenAPI 3.1 document of this daemon's /v1 API, generated from the
 * route schemas at start (src/daemon/openapi/document.ts). It is the document itself, not an envelope,
 * so any OpenAPI tool can read it from the URL.
 */
export const openApiRoutes: RoutePlugin = async (app) => {
  app.get(
    '/v1/openapi.json',
    {
      schema: {
        summary: 'The OpenAPI 3.1 document of this API',
        tags: ['meta'],
        operationId: 'getOpenApiDocument',
        response: { 200: OpenApiDocumentSchema },
      },
    },
    async (_request, reply) => reply.header('Cache-Control', 'no-cache').send(app.swagger()),
  );
};
