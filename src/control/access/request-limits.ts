import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RoutePlugin, RoutePluginOptions, AppServices } from '../../platform/app/index.js';
import { consumeRateLimit, type RateLimitRule } from '../../platform/http/index.js';
import type { Principal } from './principal.js';

type LimitServices = Pick<AppServices, 'config' | 'rateLimits' | 'now'>;

const WINDOW_MS = 60_000;

/** The general limit (docs/contract.md#rate-limits): every route without one of its own, per principal. */
function generalRule(services: LimitServices): RateLimitRule {
  return { name: 'requests', limit: services.config.settings.rateLimitPerMinute, windowMs: WINDOW_MS };
}

/**
 * Whose budget a request spends: its API key or user; the client
 * address when anonymous (or its credential was refused).
 */
function budgetKey(principal: Principal | null, address: string): string {
  if (principal?.kind === 'api_key') return `key:${principal.keyId}`;
  if (principal?.kind === 'user') return `user:${principal.userId}`;
  return `address:${address}`;
}

/**
 * Counts a management request against its principal's budget (request.principal; before it is
 * resolved, or when its credential was refused, the client address's); 429 quota.rate_limited
 * past it. The RateLimit headers go on the reply.
 */
export async function limitPrincipalRequest(
  services: LimitServices,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  await consumeRateLimit(
    services.rateLimits,
    generalRule(services),
    budgetKey(request.principal ?? null, request.ip),
    services.now(),
    reply,
  );
}

/**
 * A public route group under a limit per client address (node files, JWKS, billing): the general
 * limit unless `ruleOf` gives the group its own (node files: nodeRateLimitPerMinute, so reads of
 * published files and API calls from one address do not spend one budget). An onRequest hook, so
 * an over-limit request is refused before its body is read.
 */
export function limitedByAddress<Options extends RoutePluginOptions>(
  routes: RoutePlugin<Options>,
  ruleOf: (services: LimitServices) => RateLimitRule = generalRule,
): RoutePlugin<Options> {
  return async (app, options) => {
    const rule = ruleOf(options.services);
    app.addHook('onRequest', async (request, reply) => {
      await consumeRateLimit(
        options.services.rateLimits,
        rule,
        budgetKey(null, request.ip),
        options.services.now(),
        reply,
      );
    });
    await app.register(routes, options);
  };
}

/** The node files' own limit per client address. */
export function nodeReadRule(services: LimitServices): RateLimitRule {
  return { name: 'nodes', limit: services.config.settings.nodeRateLimitPerMinute, windowMs: WINDOW_MS };
}

/**
 * Counts an answered management request in the api_requests usage of the organization it acted
 * on, or of the API key's organization (docs/contract.md#plans); a user's request outside any
 * organization (e.g. GET /v1/auth/me) counts nowhere.
 */
export function countApiRequest(services: Pick<AppServices, 'usage'>, request: FastifyRequest): void {
  const organizationId =
    request.tenant?.organizationId ??
    (request.principal?.kind === 'api_key' ? request.principal.organizationId : undefined);
  if (organizationId !== undefined) services.usage.count(organizationId, 'api_requests');
}
