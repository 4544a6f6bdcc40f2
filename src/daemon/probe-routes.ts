import { AppError } from '../platform/errors/index.js';
import type { RoutePlugin } from '../platform/app/index.js';
import { NODECTL_VERSION } from '../platform/config/index.js';
import { CONTRACT_VERSION, NODE_SCHEMA_VERSION, SIGNING_SCHEME } from '../platform/contract/index.js';
import { sendData } from '../platform/http/index.js';

/** System probes (docs/contract.md#probes): no auth. */
export const probeRoutes: RoutePlugin = async (app, { services }) => {
  app.get('/', async (request, reply) =>
    sendData(request, reply, {
      name: 'nodectl',
      version: NODECTL_VERSION,
      contractVersion: CONTRACT_VERSION,
      nodeSchemaVersion: NODE_SCHEMA_VERSION,
      signingScheme: SIGNING_SCHEME,
    }),
  );

  // Liveness: answers from memory only.
  app.get('/healthz', async (request, reply) => sendData(request, reply, { status: 'ok' }));

  app.get('/readyz', async (request, reply) => {
    try {
      services.controlDb.prepare('SELECT 1').get();
    } catch (error) {
      throw new AppError('service.unavailable', 'The control database cannot be read.', {
        cause: error,
        retryAfterSeconds: 5,
      });
    }
    return sendData(request, reply, { status: 'ready' });
  });

  app.get('/metrics', async (_request, reply) => {
    const body = await services.metrics.registry.metrics();
    return reply.type(services.metrics.registry.contentType).send(body);
  });
};
