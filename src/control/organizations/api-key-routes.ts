import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { RoutePlugin } from '../../platform/app/route-plugin.js';
import { auditRequest } from '../access/request-audit.js';
import { AppError } from '../../platform/errors/app-error.js';
import { sendData } from '../../platform/http/envelope.js';
import { ListQuerySchema, pageOf, parseListQuery } from '../../platform/http/list-query.js';
import { dataEnvelope, listEnvelope, NoContent } from '../../platform/http/route-docs.js';
import { createApiKey, getApiKey, listApiKeysPage, revokeApiKey, type ApiKeyRecord } from '../records/api-keys.js';
import { onOrganization } from './access.js';
import { authorizedOrganization, callingUser } from './request-caller.js';
import { assertMayGrant } from './role-policy.js';
import {
  ApiKeyParamsSchema,
  ApiKeySchema,
  CreateApiKeyBodySchema,
  CreatedApiKeySchema,
  OrganizationParamsSchema,
} from './schemas.js';

const TAGS = ['api-keys'];

/** A key as lists show it: its prefix identifies it, the secret and its hash never leave the server. */
function presentKey(key: ApiKeyRecord) {
  return {
    id: key.id,
    name: key.name,
    role: key.role,
    prefix: key.prefix,
    createdBy: key.createdBy,
    createdAt: key.createdAt,
    revokedAt: key.revokedAt,
  };
}

/**
 * POST (201, the key shown once), GET (no secrets), DELETE (revoke, 204)
 * /v1/organizations/:id/api-keys[/:keyId]: organization_admin, signed-in users only
 * (docs/contract.md#principals: an API key never manages keys).
 */
export const apiKeyRoutes: RoutePlugin = async (plainApp, { services }) => {
  const app = plainApp.withTypeProvider<ZodTypeProvider>();
  const db = services.controlDb;

  app.post(
    '/v1/organizations/:id/api-keys',
    {
      config: { access: onOrganization('organization_admin', 'mutate', 'users'), errors: ['auth.forbidden'] },
      schema: {
        summary: 'Create an API key of the organization; the key is shown in this answer only',
        tags: TAGS,
        params: OrganizationParamsSchema,
        body: CreateApiKeyBodySchema,
        response: { 201: dataEnvelope(CreatedApiKeySchema) },
      },
    },
    async (request, reply) => {
      const { name, role } = request.body;
      const tenant = authorizedOrganization(request);
      assertMayGrant(tenant.role, role);
      const created = db
        .transaction(() => {
          const key = createApiKey(
            db,
            { organizationId: tenant.organizationId, name, role, createdBy: callingUser(request).userId },
            services.now(),
          );
          auditRequest(services, request, {
            organizationId: tenant.organizationId,
            action: 'api_key.created',
            target: key.id,
            details: { name: key.name, role: key.role, prefix: key.prefix },
          });
          return key;
        })
        .immediate();
      return sendData(request, reply, { ...presentKey(created), key: created.key }, 201);
    },
  );

  app.get(
    '/v1/organizations/:id/api-keys',
    {
      config: { access: onOrganization('organization_admin', 'read', 'users'), errors: [] },
      schema: {
        summary: "List the organization's API keys by id, revoked ones included, without their secrets",
        tags: TAGS,
        params: OrganizationParamsSchema,
        querystring: ListQuerySchema,
        response: { 200: listEnvelope(ApiKeySchema) },
      },
    },
    async (request, reply) => {
      const query = parseListQuery(request.query);
      const tenant = authorizedOrganization(request);
      return sendData(
        request,
        reply,
        pageOf(listApiKeysPage(db, tenant.organizationId, query), query, (k) => k.id, presentKey),
      );
    },
  );

  // The key stops working with the next request; revoking a revoked key answers the same.
  app.delete(
    '/v1/organizations/:id/api-keys/:keyId',
    {
      config: {
        access: onOrganization('organization_admin', 'mutate', 'users'),
        errors: ['organization.api_key_not_found'],
      },
      schema: {
        summary: 'Revoke an API key: it is refused from the next request on',
        tags: TAGS,
        params: ApiKeyParamsSchema,
        response: { 204: NoContent },
      },
    },
    async (request, reply) => {
      const tenant = authorizedOrganization(request);
      const { keyId } = request.params;
      db.transaction(() => {
        if (!getApiKey(db, tenant.organizationId, keyId))
          throw new AppError(
            'organization.api_key_not_found',
            `No API key ${keyId} in this organization: see GET /v1/organizations/:id/api-keys.`,
          );
        if (revokeApiKey(db, tenant.organizationId, keyId, services.now()))
          auditRequest(services, request, {
            organizationId: tenant.organizationId,
            action: 'api_key.revoked',
            target: keyId,
          });
      }).immediate();
      return reply.code(204).send();
    },
  );
};
