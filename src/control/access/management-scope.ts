import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { AppServices } from '../../platform/app/services.js';
import type { RoutePlugin, RoutePluginOptions } from '../../platform/app/route-plugin.js';
import { AppError } from '../../platform/errors/app-error.js';
import { getOrganization } from '../records/organizations.js';
import type { WebsiteRecord } from '../records/record-types.js';
import { getWebsite } from '../records/websites.js';
import {
  authorizeConnector,
  authorizeOrganization,
  authorizeWebsite,
  unauthenticated,
  type EffectiveRole,
} from './authorize.js';
import { ANONYMOUS, type Principal, type PrincipalResolvers } from './principal.js';
import { countApiRequest, limitPrincipalRequest } from './request-limits.js';
import type { ManagementRoute, RouteAccess } from './route-access.js';

/** The organization (and website) a route acts on, loaded and authorized before its handler. */
export interface AuthorizedTenant {
  readonly organizationId: string;
  readonly role: EffectiveRole;
  /** Set when the route's resource is a website, or a connector (its website). */
  readonly website?: WebsiteRecord;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Who is calling; resolved once per request, on management routes only (management-scope.ts). */
    principal: Principal;
    /** What the route's declared resource resolved to; null when it declares none. */
    tenant: AuthorizedTenant | null;
  }
}

export interface ManagementScopeOptions extends RoutePluginOptions {
  resolvers: PrincipalResolvers;
  /** The route groups of the scope; each of their routes must declare config.access. */
  routes: readonly RoutePlugin[];
  /** Filled with every route of the scope as it registers (the route table). */
  routeTable: ManagementRoute[];
}

const BEARER = /^bearer[ \t]+(\S+)[ \t]*$/i;

/** The credential a request presents: X-Api-Key, else Authorization: Bearer (the scheme is case-insensitive, RFC 9110 section 11.1). */
function presentedCredential(
  request: FastifyRequest,
): { header: 'x-api-key' | 'authorization'; value: string } | undefined {
  const apiKey = request.headers['x-api-key'];
  if (typeof apiKey === 'string' && apiKey.length > 0) return { header: 'x-api-key', value: apiKey };
  const match = typeof request.headers.authorization === 'string' ? BEARER.exec(request.headers.authorization) : null;
  return match?.[1] ? { header: 'authorization', value: match[1] } : undefined;
}

/** Resolves the caller: anonymous without a credential; 401 auth.unauthenticated for one no resolver accepts. */
export async function resolvePrincipal(request: FastifyRequest, resolvers: PrincipalResolvers): Promise<Principal> {
  const credential = presentedCredential(request);
  if (!credential) return ANONYMOUS;
  const principal =
    resolvers.resolveApiKeyPrincipal(credential.value) ??
    (credential.header === 'authorization' ? await resolvers.resolveUserPrincipal(credential.value) : undefined);
  if (!principal)
    throw new AppError('auth.unauthenticated', 'The API key is unknown or revoked (or the access token is not valid).');
  return principal;
}

function checkDeclaration(method: string, url: string, access: RouteAccess | undefined): RouteAccess {
  const route = `${method} ${url}`;
  if (!url.startsWith('/v1/') || url.startsWith('/v1/ingest/'))
    throw new Error(`${route} is not a management route: the management scope holds /v1/* except /v1/ingest/*`);
  if (!access)
    throw new Error(
      `${route} declares no config.access: give its minimum role and whether it reads or mutates (src/control/access/route-access.ts)`,
    );
  if ('resource' in access && !new RegExp(`:${access.resource.param}(?:/|$)`).test(url))
    throw new Error(`${route} declares resource parameter :${access.resource.param}, which its path lacks`);
  return access;
}

/**
 * The management scope: every /v1 route but /v1/ingest/*, the waitlist and the probes. One hook
 * resolves request.principal (API key, or a user session through the resolvers' user slot) and
 * enforces the route's declared access before the handler: 401 without a credential, then the
 * tenant-isolation rule on the declared website or organization (docs/contract.md#tenant-isolation).
 */
export const managementScope: FastifyPluginAsync<ManagementScopeOptions> = async (app, options) => {
  const { services, resolvers, routeTable } = options;
  const lookups = lookupsOf(services);
  app.decorateRequest<Principal | null>('principal', null);
  app.decorateRequest('tenant', null);

  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const access = checkDeclaration(methods.join(','), route.url, route.config?.access);
    for (const method of methods) if (method !== 'HEAD') routeTable.push({ method, url: route.url, access });
  });

  // preValidation: who may call is decided before a route's body schema runs (a stranger learns nothing from a 422).
  app.addHook('preValidation', async (request, reply) => {
    const access = request.routeOptions.config.access!;
    if (access.minRole === 'anonymous') {
      request.principal = await resolvePrincipal(request, resolvers).catch(() => ANONYMOUS);
      return limitPrincipalRequest(services, request, reply);
    }
    const principal = await resolvePrincipal(request, resolvers).catch(async (error: unknown) => {
      await limitPrincipalRequest(services, request, reply); // a refused credential spends the client address's budget
      throw error;
    });
    request.principal = principal;
    await limitPrincipalRequest(services, request, reply);
    if (principal.kind === 'anonymous') throw unauthenticated();
    if (principal.kind === 'api_key' && access.apiKeys === false)
      throw new AppError(
        'auth.forbidden',
        'API keys cannot call this route: sign in as a user (docs/contract.md#principals).',
      );
    if (access.minRole === 'authenticated') return;
    const id = (request.params as Record<string, string | undefined>)[access.resource.param] ?? '';
    if (access.resource.kind === 'website' || access.resource.kind === 'connector') {
      const { website, role } =
        access.resource.kind === 'website'
          ? authorizeWebsite(principal, id, access.minRole, access.access, lookups)
          : authorizeConnector(principal, id, access.minRole, access.access, lookups);
      request.tenant = { organizationId: website.organizationId, role, website };
    } else {
      request.tenant = {
        organizationId: id,
        role: authorizeOrganization(principal, id, access.minRole, access.access, lookups),
      };
    }
  });

  app.addHook('onResponse', async (request) => countApiRequest(services, request));

  for (const routes of options.routes) await app.register(routes, { services });
};

function lookupsOf(services: Pick<AppServices, 'controlDb'>) {
  return {
    website: (id: string) => getWebsite(services.controlDb, id),
    connectorWebsite: (id: string) => {
      const websiteId = services.controlDb.prepare('SELECT website_id FROM connectors WHERE id = ?').pluck().get(id) as
        string | undefined;
      return websiteId === undefined ? undefined : getWebsite(services.controlDb, websiteId);
    },
    organizationExists: (id: string) => getOrganization(services.controlDb, id) !== undefined,
  };
}

/** The website a route declared as its resource, authorized; throws when the route declared none (a programming error). */
export function authorizedWebsite(request: FastifyRequest): WebsiteRecord {
  const website = request.tenant?.website;
  if (!website)
    throw new Error(
      `${request.method} ${request.routeOptions.url} reads its website but declares no website resource in config.access`,
    );
  return website;
}
