import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { RoutePlugin } from '../../platform/app/index.js';
import { monthOf, readUsage } from '../../platform/storage/index.js';
import type { RouteAccess } from '../access/index.js';
import { sendData, dataEnvelope } from '../../platform/http/index.js';
import {
  readEntitlements,
  EntitlementsSchema,
  OrganizationPathSchema,
  UsageQuerySchema,
  UsageSchema,
} from '../plans/index.js';

/**
 * Any member reads; the caller's organization must be the one in the path (another's reads as
 * 404 organization.not_found), platform admins excepted: the management scope enforces it.
 */
const READ_ACCESS: RouteAccess = { minRole: 'viewer', access: 'read', resource: { kind: 'organization', param: 'id' } };

/**
 * GET /v1/organizations/:id/entitlements (the plan, its capabilities and every quota with its
 * use) and GET /v1/organizations/:id/usage (the usage counters of a calendar month, UTC), both
 * read-only (docs/contract.md#plans, docs/organizations.md "Plans and limits").
 */
export const planRoutes: RoutePlugin = async (plainApp, { services }) => {
  const app = plainApp.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/v1/organizations/:id/entitlements',
    {
      config: { access: READ_ACCESS },
      schema: {
        summary: "The organization's plan, its capabilities and every quota with what is used",
        tags: ['billing'],
        params: OrganizationPathSchema,
        response: { 200: dataEnvelope(EntitlementsSchema).describe('The plan and its quotas now') },
      },
    },
    async (request, reply) =>
      sendData(request, reply, readEntitlements(services.controlDb, request.params.id, services.now())),
  );

  app.get(
    '/v1/organizations/:id/usage',
    {
      config: { access: READ_ACCESS },
      schema: {
        summary: "The organization's usage counters of one calendar month (UTC)",
        tags: ['billing'],
        params: OrganizationPathSchema,
        querystring: UsageQuerySchema,
        response: { 200: dataEnvelope(UsageSchema).describe('The counters of the month') },
      },
    },
    async (request, reply) => {
      const period = request.query.period ?? monthOf(services.now());
      services.usage.flush(); // api_requests counted in memory so far, this request's own excepted
      return sendData(request, reply, {
        organization_id: request.params.id,
        period,
        usage: readUsage(services.controlDb, request.params.id, period),
      });
    },
  );
};
