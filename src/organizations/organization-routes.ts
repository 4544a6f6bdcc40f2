import { z } from 'zod';
import type { RoutePlugin } from '../app/route-plugin.js';
import type { RouteAccess } from '../auth/route-access.js';
import { AppError } from '../errors/app-error.js';
import { sendData } from '../http/envelope.js';
import { pageOf, parseListQuery } from '../http/list-query.js';
import { acceptPendingInvitations } from '../tenancy/invitations.js';
import { createOrganizationOwnedBy, getOrganization, listOrganizationsOfUser, renameOrganization } from '../tenancy/organizations.js';
import type { OrganizationRecord } from '../tenancy/records.js';
import { getUser } from '../tenancy/users.js';
import { auditRequest } from '../auth/request-audit.js';
import { onOrganization } from './access.js';
import { deleteEmptyOrganization } from './erase.js';
import { parseInput } from './parse-input.js';
import { authorizedOrganization, callingUser } from './request-caller.js';

const OrganizationNameSchema = z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');
const CreateOrganizationBodySchema = z.strictObject({ name: OrganizationNameSchema });
const UpdateOrganizationBodySchema = z.strictObject({ name: OrganizationNameSchema });

const LIST_ACCESS: RouteAccess = { minRole: 'authenticated', access: 'read' };
/** Any signed-in user may create an organization; an API key belongs to one and may not make more. */
const CREATE_ACCESS: RouteAccess = { minRole: 'authenticated', access: 'mutate', apiKeys: false };

function loadOrganization(db: Parameters<typeof getOrganization>[0], id: string): OrganizationRecord {
  const organization = getOrganization(db, id);
  if (!organization) throw new AppError('organization.not_found', `No organization ${id} among yours.`);
  return organization;
}

/**
 * GET, POST /v1/organizations; GET (member), PATCH (organization_admin), DELETE
 * (organization_owner) /v1/organizations/:id (docs/organizations.md "Routes").
 */
export const organizationRoutes: RoutePlugin = async (app, { services }) => {
  const db = services.controlDb;

  // A user's memberships (invitations of a verified address join first); an API key: its own organization.
  app.get('/v1/organizations', { config: { access: LIST_ACCESS } }, async (request, reply) => {
    const query = parseListQuery(request.query);
    const principal = request.principal;
    if (principal.kind === 'api_key') {
      const own = getOrganization(db, principal.organizationId)!;
      const items = query.after === undefined || own.id > query.after ? [{ ...own, role: principal.role }] : [];
      return sendData(request, reply, pageOf(items, query, (o) => o.id));
    }
    const user = callingUser(request);
    const account = getUser(db, user.userId);
    if (account?.emailVerified) acceptPendingInvitations(db, { userId: account.id, email: account.email }, services.now());
    return sendData(request, reply, pageOf(listOrganizationsOfUser(db, user.userId, query), query, (o) => o.id));
  });

  app.post('/v1/organizations', { config: { access: CREATE_ACCESS } }, async (request, reply) => {
    const { name } = parseInput(CreateOrganizationBodySchema, request.body, 'organization');
    const user = callingUser(request);
    if (!getUser(db, user.userId)) throw new AppError('auth.unauthenticated', 'The account of this session no longer exists.');
    const organization = db.transaction(() => {
      const created = createOrganizationOwnedBy(db, { name, ownerId: user.userId }, services.now());
      auditRequest(services, request, { organizationId: created.id, action: 'organization.created', target: created.id, details: { name: created.name, slug: created.slug } });
      return created;
    }).immediate();
    return sendData(request, reply, { ...organization, role: 'organization_owner' }, 201);
  });

  app.get<{ Params: { id: string } }>('/v1/organizations/:id', { config: { access: onOrganization('viewer', 'read') } }, async (request, reply) => {
    const tenant = authorizedOrganization(request);
    return sendData(request, reply, { ...loadOrganization(db, tenant.organizationId), role: tenant.role });
  });

  app.patch<{ Params: { id: string } }>('/v1/organizations/:id', { config: { access: onOrganization('organization_admin', 'mutate') } }, async (request, reply) => {
    const { name } = parseInput(UpdateOrganizationBodySchema, request.body, 'organization update');
    const tenant = authorizedOrganization(request);
    const organization = db.transaction(() => {
      const before = loadOrganization(db, tenant.organizationId);
      const after = renameOrganization(db, tenant.organizationId, name)!;
      auditRequest(services, request, { organizationId: after.id, action: 'organization.updated', target: after.id, details: { name_before: before.name, name: after.name } });
      return after;
    }).immediate();
    return sendData(request, reply, { ...organization, role: tenant.role });
  });

  // Synchronous only while the organization has no websites (409 organization.not_empty): erase removes those.
  app.delete<{ Params: { id: string } }>('/v1/organizations/:id', { config: { access: onOrganization('organization_owner', 'mutate', 'users') } }, async (request, reply) => {
    const tenant = authorizedOrganization(request);
    deleteEmptyOrganization(services, tenant.organizationId);
    services.logger.info({ requestId: request.id }, 'organization deleted');
    return reply.code(204).send();
  });
};
