import type { FastifyRequest } from 'fastify';
import type { UserPrincipal } from '../access/principal.js';
import type { AuthorizedTenant } from '../access/management-scope.js';

/**
 * The signed-in user of a route declared `apiKeys: false`: the management scope has refused
 * every other principal before the handler, so anything else is a programming error.
 */
export function callingUser(request: FastifyRequest): UserPrincipal {
  const principal = request.principal;
  if (principal.kind !== 'user')
    throw new Error(
      `${request.method} ${request.routeOptions.url} needs a user session but let a ${principal.kind} principal through: declare apiKeys: false`,
    );
  return principal;
}

/** The organization a route declared as its resource, authorized before the handler. */
export function authorizedOrganization(request: FastifyRequest): AuthorizedTenant {
  const tenant = request.tenant;
  if (!tenant)
    throw new Error(
      `${request.method} ${request.routeOptions.url} reads its organization but declares no organization resource in config.access`,
    );
  return tenant;
}
