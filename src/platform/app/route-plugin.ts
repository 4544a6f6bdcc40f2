import type { FastifyPluginAsync } from 'fastify';
import type { AppServices } from './services.js';

/** What every route group receives when the daemon registers it. */
export interface RoutePluginOptions {
  services: AppServices;
}

/** A group of routes: an encapsulated Fastify plugin in its feature's folder (src/<feature>/routes.ts). */
export type RoutePlugin<Options extends RoutePluginOptions = RoutePluginOptions> = FastifyPluginAsync<Options>;
