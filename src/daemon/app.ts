import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { accountsContextOf, userPrincipalResolver } from '../control/accounts/index.js';
import type { AppServices } from '../platform/app/index.js';
import { NODECTL_VERSION } from '../platform/config/index.js';
import {
  apiKeyPrincipalResolver,
  managementScope,
  type PrincipalResolvers,
  type ManagementRoute,
} from '../control/access/index.js';
import { createHttpApp } from '../platform/http/index.js';
import { forwardGraphRequests, type GraphOwnership } from '../ingest/ownership/index.js';
import { registerOpenApi } from './openapi/document.js';
import { CONNECTOR_ROUTES, MANAGEMENT_ROUTES, PUBLIC_ROUTES } from './route-plugins.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Every management route with its declared access, as registered (for the isolation matrix). */
    managementRoutes: readonly ManagementRoute[];
  }
}

export interface BuildAppOptions {
  /** Fastify logger options; false (the default in tests) logs nothing. */
  logger?: FastifyServerOptions['logger'];
  /** Replaces principal resolvers (tests plug in user sessions); default: API keys, no user sessions. */
  principalResolvers?: Partial<PrincipalResolvers>;
  /** With several daemons on one control store: requests for a graph another daemon writes go to it. */
  graphOwnership?: GraphOwnership;
}

/**
 * Builds the daemon's HTTP application without listening, so tests can inject requests and
 * `nodectl serve` can listen: the HTTP shell (src/platform/http) plus every route group of
 * route-plugins.ts, the management groups inside the scope that resolves the principal.
 */
export async function buildApp(services: AppServices, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const app = createHttpApp({
    settings: services.config.settings,
    apiVersion: NODECTL_VERSION,
    logger: options.logger,
    onAnswered(labels, seconds) {
      services.metrics.httpRequests.inc(labels);
      if (seconds !== undefined) services.metrics.httpDuration.observe(labels, seconds);
    },
  });
  const routeTable: ManagementRoute[] = [];
  app.decorate('managementRoutes', routeTable);
  const resolvers: PrincipalResolvers = {
    resolveApiKeyPrincipal: apiKeyPrincipalResolver(services.controlDb),
    // A user's access token (a JWT), verified by the accounts feature.
    resolveUserPrincipal: userPrincipalResolver(() => accountsContextOf(services, app.server)),
    ...options.principalResolvers,
  };
  await registerOpenApi(app);
  if (options.graphOwnership) forwardGraphRequests(app, options.graphOwnership, services.controlDb);
  for (const routes of [...PUBLIC_ROUTES, ...CONNECTOR_ROUTES]) await app.register(routes, { services });
  await app.register(managementScope, { services, resolvers, routes: MANAGEMENT_ROUTES, routeTable });
  return app;
}
