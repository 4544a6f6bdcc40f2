import { z } from 'zod';
import type { RoutePlugin } from '../app/route-plugin.js';
import type { RouteAccess } from '../auth/route-access.js';
import { AppError, fieldProblemsFromZod } from '../errors/app-error.js';
import { sendData } from '../http/envelope.js';
import { readEntitlements } from './entitlements.js';
import { monthOf, readUsage } from './usage.js';

/**
 * Any member reads; the caller's organization must be the one in the path (another's reads as
 * 404 organization.not_found), platform admins excepted: the management scope enforces it.
 */
const READ_ACCESS: RouteAccess = { minRole: 'viewer', access: 'read', resource: { kind: 'organization', param: 'id' } };

const UsageQuerySchema = z.strictObject({
  /** The calendar month (UTC), `YYYY-MM`; default the current one. */
  period: z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'must be a calendar month, YYYY-MM').optional(),
});

/**
 * GET /v1/organizations/:id/entitlements (the plan, its capabilities and every quota with its
 * use) and GET /v1/organizations/:id/usage (the usage counters of a calendar month, UTC), both
 * read-only (docs/contract.md#plans, docs/organizations.md "Plans and limits").
 */
export const planRoutes: RoutePlugin = async (app, { services }) => {
  app.get<{ Params: { id: string } }>('/v1/organizations/:id/entitlements', { config: { access: READ_ACCESS } }, async (request, reply) => {
    return sendData(request, reply, readEntitlements(services.controlDb, request.params.id, services.now()));
  });

  app.get<{ Params: { id: string } }>('/v1/organizations/:id/usage', { config: { access: READ_ACCESS } }, async (request, reply) => {
    const query = UsageQuerySchema.safeParse(request.query);
    if (!query.success) throw new AppError('validation.failed', 'The query is not valid; see details.fields.', { details: { fields: fieldProblemsFromZod(query.error.issues) } });
    const period = query.data.period ?? monthOf(services.now());
    services.usage.flush(); // api_requests counted in memory so far, this request's own excepted
    return sendData(request, reply, { organization_id: request.params.id, period, usage: readUsage(services.controlDb, request.params.id, period) });
  });
};
