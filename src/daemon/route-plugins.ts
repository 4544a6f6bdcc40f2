import type { FastifyPluginAsync } from 'fastify';
import type { AppServices } from '../app/services.js';
import { probeRoutes } from './routes/probes.js';
import { waitlistRoutes } from './routes/waitlist.js';
import { ingestRoutes } from '../ingest/routes.js';
import { publishRoutes } from './routes/publish.js';
import { nodeFileRoutes } from './routes/node-files.js';

export interface RoutePluginOptions {
  services: AppServices;
}

/** Every route group of the daemon, each an encapsulated Fastify plugin. Add one line per group. */
export const ROUTE_PLUGINS: ReadonlyArray<FastifyPluginAsync<RoutePluginOptions>> = [
  probeRoutes,
  waitlistRoutes,
  ingestRoutes,
  publishRoutes,
  nodeFileRoutes,
];
