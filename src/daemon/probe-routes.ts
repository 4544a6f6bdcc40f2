import { z } from 'zod';
import { AppError } from '../platform/errors/index.js';
import type { RoutePlugin } from '../platform/app/index.js';
import { NODECTL_VERSION } from '../platform/config/index.js';
import { CONTRACT_VERSION, NODE_SCHEMA_VERSION, SIGNING_SCHEME } from '../platform/contract/index.js';
import { dataEnvelope, sendData } from '../platform/http/index.js';

/** The probe paths: public, outside /v1, and described in the OpenAPI document all the same. */
export const PROBE_PATHS: ReadonlySet<string> = new Set(['/', '/healthz', '/readyz', '/metrics']);

const TAGS = ['probes'];

/** System probes (docs/contract.md#probes): no auth. */
export const probeRoutes: RoutePlugin = async (app, { services }) => {
  app.get(
    '/',
    {
      schema: {
        summary: 'The service banner: nodectl, its version and the contract versions it speaks',
        tags: TAGS,
        operationId: 'getServiceBanner',
        response: {
          200: dataEnvelope(
            z.object({
              name: z.literal('nodectl'),
              version: z.string(),
              contractVersion: z.string(),
              nodeSchemaVersion: z.string(),
              signingScheme: z.string(),
            }),
          ),
        },
      },
    },
    async (request, reply) =>
      sendData(request, reply, {
        name: 'nodectl',
        version: NODECTL_VERSION,
        contractVersion: CONTRACT_VERSION,
        nodeSchemaVersion: NODE_SCHEMA_VERSION,
        signingScheme: SIGNING_SCHEME,
      }),
  );

  // Liveness: answers from memory only.
  app.get(
    '/healthz',
    {
      schema: {
        summary: 'Liveness: the process answers (no I/O)',
        tags: TAGS,
        operationId: 'getHealth',
        response: { 200: dataEnvelope(z.object({ status: z.literal('ok') })) },
      },
    },
    async (request, reply) => sendData(request, reply, { status: 'ok' }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        summary: 'Readiness: the control database can be read',
        tags: TAGS,
        operationId: 'getReadiness',
        response: { 200: dataEnvelope(z.object({ status: z.literal('ready') })) },
      },
      config: { errors: ['service.unavailable'] },
    },
    async (request, reply) => {
      try {
        services.controlDb.prepare('SELECT 1').get();
      } catch (error) {
        throw new AppError('service.unavailable', 'The control database cannot be read.', {
          cause: error,
          retryAfterSeconds: 5,
        });
      }
      return sendData(request, reply, { status: 'ready' });
    },
  );

  app.get(
    '/metrics',
    {
      schema: {
        summary: 'Prometheus metrics in the text exposition format (not the envelope)',
        tags: TAGS,
        operationId: 'getMetrics',
        response: {
          200: {
            description: 'The metrics, text/plain; version=0.0.4',
            content: { 'text/plain': { schema: z.string() } },
          },
        },
      },
    },
    async (_request, reply) => {
      const body = await services.metrics.registry.metrics();
      return reply.type(services.metrics.registry.contentType).send(body);
    },
  );
};
