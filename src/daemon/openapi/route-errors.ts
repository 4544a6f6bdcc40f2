import type { RouteOptions } from 'fastify';
import type { RouteAccess } from '../../control/access/index.js';
import { ERROR_CODES, type ErrorCode } from '../../platform/errors/index.js';
import { PROBE_PATHS } from '../probe-routes.js';

/**
 * Codes any /v1 request can meet before or around its route: transport clocks and limits, the
 * rate limit (per principal, per address, or the waitlist's own), shutdown, a full or failing
 * disk, a bug.
 */
const EVERY_ROUTE: readonly ErrorCode[] = [
  'request.malformed',
  'request.timeout',
  'request.uri_too_long',
  'request.header_too_large',
  'quota.rate_limited',
  'service.unavailable',
  'service.storage_unavailable',
  'internal.error',
];

/**
 * Codes of a route that reads a JSON body (src/platform/http/create-app.ts):
 * any method but GET, since a client may send a body the route does not want.
 */
const WITH_BODY: readonly ErrorCode[] = [
  'request.body_too_large',
  'request.unsupported_media_type',
  'validation.failed',
];

/** Codes of a signed connector route before its handler runs (docs/contract.md#connector-signing). */
const SIGNED_INGEST: readonly ErrorCode[] = [
  'auth.unauthenticated',
  'auth.invalid_signature',
  'auth.timestamp_skew',
  'auth.nonce_replay',
  'validation.missing_idempotency_key',
];

const NOT_FOUND_OF_RESOURCE = {
  website: 'website.not_found',
  organization: 'organization.not_found',
  connector: 'connector.not_found',
} as const satisfies Record<string, ErrorCode>;

/**
 * Codes the management scope's access check answers for a route's
 * declared access (src/control/access/management-scope.ts).
 */
function accessErrors(access: RouteAccess): ErrorCode[] {
  const codes: ErrorCode[] = [];
  if (access.minRole === 'anonymous') return codes;
  codes.push('auth.unauthenticated');
  if ('apiKeys' in access && access.apiKeys === false) codes.push('auth.forbidden');
  if ('resource' in access)
    codes.push('auth.forbidden', 'auth.tenant_mismatch', NOT_FOUND_OF_RESOURCE[access.resource.kind]);
  return codes;
}

type DocumentedRoute = Pick<RouteOptions, 'url' | 'method' | 'config' | 'schema'>;

/**
 * Every error code one route can answer: those implied by its scope and schemas, plus the route's
 * own (config.errors). Sorted, without repeats, so the document is stable.
 */
export function routeErrorCodes(route: DocumentedRoute): ErrorCode[] {
  const codes = new Set<ErrorCode>(EVERY_ROUTE);
  const config = (route.config ?? {}) as { access?: RouteAccess; errors?: readonly ErrorCode[] };
  const schema = (route.schema ?? {}) as Record<string, unknown>;
  if (config.access) for (const code of accessErrors(config.access)) codes.add(code);
  if (route.url.startsWith('/v1/ingest/')) for (const code of SIGNED_INGEST) codes.add(code);
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  if (schema.body !== undefined || methods.some((method) => method !== 'GET' && method !== 'HEAD'))
    for (const code of WITH_BODY) codes.add(code);
  if (schema.querystring !== undefined || schema.params !== undefined) codes.add('validation.failed');
  // The probes are never rate limited (src/daemon/route-plugins.ts).
  if (PROBE_PATHS.has(route.url)) codes.delete('quota.rate_limited');
  for (const code of config.errors ?? []) {
    if (!(code in ERROR_CODES))
      throw new Error(
        `${String(route.method)} ${route.url} declares unknown error code ${code} in config.errors (src/platform/errors/registry.ts)`,
      );
    codes.add(code);
  }
  return [...codes].sort();
}

/** Codes grouped by their HTTP status, statuses ascending. */
export function codesByStatus(codes: readonly ErrorCode[]): Map<number, ErrorCode[]> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = ERROR_CODES[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return new Map([...byStatus].sort(([a], [b]) => a - b));
}
