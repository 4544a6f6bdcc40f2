import { z } from 'zod';
import type { RoutePlugin } from '../app/route-plugin.js';
import { auditRequest } from '../auth/request-audit.js';
import { AppError } from '../errors/app-error.js';
import { sendData } from '../http/envelope.js';
import { pageOf, parseListQuery } from '../http/list-query.js';
import { API_KEY_ROLES, createApiKey, getApiKey, listApiKeysPage, revokeApiKey, type ApiKeyRecord } from '../tenancy/api-keys.js';
import { onOrganization } from './access.js';
import { parseInput } from './parse-input.js';
import { authorizedOrganization, callingUser } from './request-caller.js';
import { assertMayGrant } from './role-policy.js';

const CreateKeyBodySchema = z.strictObject({
  name: z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters').default('api key'),
  role: z.enum(API_KEY_ROLES, { error: `must be one of ${API_KEY_ROLES.join(', ')} (an API key is never organization_owner)` }).default('editor'),
});

/** A key as lists show it: its prefix identifies it, the secret and its hash never leave the server. */
function presentKey(key: ApiKeyRecord) {
  return { id: key.id, name: key.name, role: key.role, prefix: key.prefix, createdBy: key.createdBy, createdAt: key.createdAt, revokedAt: key.revokedAt };
}

/**
 * POST (201, the key shown once), GET (no secrets), DELETE (revoke, 204)
 * /v1/organizations/:id/api-keys[/:keyId]: organization_admin, signed-in users only
 * (docs/contract.md#principals: an API key never manages keys).
 */
export const apiKeyRoutes: RoutePlugin = async (app, { services }) => {
  const db = services.controlDb;

  app.post<{ Params: { id: string } }>('/v1/organizations/:id/api-keys', { config: { access: onOrganization('organization_admin', 'mutate', 'users') } }, async (request, reply) => {
    const { name, role } = parseInput(CreateKeyBodySchema, request.body ?? {}, 'API key');
    const tenant = authorizedOrganization(request);
    assertMayGrant(tenant.role, role);
    const created = db.transaction(() => {
      const key = createApiKey(db, { organizationId: tenant.organizationId, name, role, createdBy: callingUser(request).userId }, services.now());
      auditRequest(services, request, { organizationId: tenant.organizationId, action: 'api_key.created', target: key.id, details: { name: key.name, role: key.role, prefix: key.prefix } });
      return key;
    }).immediate();
    return sendData(request, reply, { ...presentKey(created), key: created.key }, 201);
  });

  app.get<{ Params: { id: string } }>('/v1/organizations/:id/api-keys', { config: { access: onOrganization('organization_admin', 'read', 'users') } }, async (request, reply) => {
    const query = parseListQuery(request.query);
    const tenant = authorizedOrganization(request);
    return sendData(request, reply, pageOf(listApiKeysPage(db, tenant.organizationId, query), query, (k) => k.id, presentKey));
  });

  // The key stops working with the next request; revoking a revoked key answers the same.
  app.delete<{ Params: { id: string; keyId: string } }>('/v1/organizations/:id/api-keys/:keyId', { config: { access: onOrganization('organization_admin', 'mutate', 'users') } }, async (request, reply) => {
    const tenant = authorizedOrganization(request);
    const { keyId } = request.params;
    db.transaction(() => {
      if (!getApiKey(db, tenant.organizationId, keyId)) throw new AppError('organization.api_key_not_found', `No API key ${keyId} in this organization: see GET /v1/organizations/:id/api-keys.`);
      if (revokeApiKey(db, tenant.organizationId, keyId, services.now())) auditRequest(services, request, { organizationId: tenant.organizationId, action: 'api_key.revoked', target: keyId });
    }).immediate();
    return reply.code(204).send();
  });
};
