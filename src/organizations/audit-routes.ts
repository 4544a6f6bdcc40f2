import type { RoutePlugin } from '../app/route-plugin.js';
import { sendData } from '../http/envelope.js';
import { pageOf, parseListQuery } from '../http/list-query.js';
import { listAudit } from '../tenancy/audit.js';
import { onOrganization } from './access.js';
import { authorizedOrganization } from './request-caller.js';

/** GET /v1/organizations/:id/audit (organization_admin): the audit log, newest first, cursor paginated. */
export const auditRoutes: RoutePlugin = async (app, { services }) => {
  app.get<{ Params: { id: string } }>('/v1/organizations/:id/audit', { config: { access: onOrganization('organization_admin', 'read') } }, async (request, reply) => {
    const query = parseListQuery(request.query);
    const tenant = authorizedOrganization(request);
    return sendData(request, reply, pageOf(listAudit(services.controlDb, tenant.organizationId, query), query, (row) => String(row.seq), ({ seq: _seq, ...row }) => row));
  });
};
