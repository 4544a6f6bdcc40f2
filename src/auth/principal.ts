import type { FastifyRequest } from 'fastify';
import type { AppServices } from '../app/services.js';
import { AppError } from '../errors/app-error.js';
import { resolveApiKey } from '../tenancy/api-keys.js';
import { roleAtLeast, type Role, type WebsiteRecord } from '../tenancy/records.js';
import { getWebsite } from '../tenancy/websites.js';

/** Who is calling a management route. User sessions (JWT) arrive with the tenancy issue. */
export interface Principal {
  kind: 'api_key';
  id: string;
  organizationId: string;
  role: Role;
}

const BEARER = /^bearer[ \t]+(\S+)[ \t]*$/i;

function presentedApiKey(request: FastifyRequest): string | undefined {
  const header = request.headers['x-api-key'];
  if (typeof header === 'string' && header.length > 0) return header;
  // The auth scheme is case-insensitive in HTTP (RFC 9110 section 11.1): "bearer" and "BEARER" are Bearer.
  const match = typeof request.headers.authorization === 'string' ? BEARER.exec(request.headers.authorization) : null;
  return match?.[1];
}

/** Resolves the caller or fails with 401 auth.unauthenticated. */
export function authenticate(services: AppServices, request: FastifyRequest): Principal {
  const key = presentedApiKey(request);
  if (!key) throw new AppError('auth.unauthenticated', 'Send an API key as Authorization: Bearer <key> or X-Api-Key.');
  const record = resolveApiKey(services.controlDb, key);
  if (!record) throw new AppError('auth.unauthenticated', 'The API key is unknown or revoked.');
  return { kind: 'api_key', id: record.id, organizationId: record.organizationId, role: record.role };
}

/**
 * Authorises the caller on one website (docs/contract.md#tenant-isolation): another organization's
 * website reads as 404 website.not_found and mutates as 403 auth.tenant_mismatch; a role below
 * `minRole` is 403 auth.forbidden.
 */
export function authorizeWebsite(services: AppServices, request: FastifyRequest, websiteId: string, minRole: Role, access: 'read' | 'mutate'): { principal: Principal; website: WebsiteRecord } {
  const principal = authenticate(services, request);
  const website = getWebsite(services.controlDb, websiteId);
  if (!website || (website.organizationId !== principal.organizationId && access === 'read')) {
    throw new AppError('website.not_found', `No website ${websiteId} in your organization.`);
  }
  if (website.organizationId !== principal.organizationId) throw new AppError('auth.tenant_mismatch', 'This website belongs to another organization.');
  if (!roleAtLeast(principal.role, minRole)) throw new AppError('auth.forbidden', `This needs the ${minRole} role or higher; the caller has ${principal.role}.`);
  return { principal, website };
}
