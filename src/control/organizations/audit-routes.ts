import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { RoutePlugin } from '../../platform/app/route-plugin.js';
import { sendData } from '../../platform/http/envelope.js';
import { ListQuerySchema, pageOf, parseListQuery } from '../../platform/http/list-query.js';
import { listEnvelope } from '../../platform/http/route-docs.js';
import { listAudit } from '../records/audit.js';
import { onOrganization } from './access.js';
import { authorizedOrganization } from './request-caller.js';
import { AuditEntrySchema, OrganizationParamsSchema } from './schemas.js';

/** GET /v1/organizations/:id/audit (organization_admin): the audit log, newest first, cursor paginated. */
export const auditRoutes: RoutePlugin = async (plainApp, { services }) => {
  const app = plainApp.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/v1/organizations/:id/audit',
    {
      config: { access: onOrganization('organization_admin', 'read'), errors: [] },
      schema: {
        summary: "Read the organization's audit log, newest first",
        tags: ['audit'],
        params: OrganizationParamsSchema,
        querystring: ListQuerySchema,
        response: { 200: listEnvelope(AuditEntrySchema) },
      },
    },
    async (request, reply) => {
      const query = parseListQuery(request.query);
      const tenant = authorizedOrganization(request);
      return sendData(
        request,
        reply,
        pageOf(
          listAudit(services.controlDb, tenant.organizationId, query),
          query,
          (row) => String(row.seq),
          ({ seq: _seq, ...row }) => row,
        ),
      );
    },
  );
};
