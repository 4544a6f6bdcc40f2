import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { RoutePlugin } from '../../platform/app/route-plugin.js';
import type { RouteAccess } from '../access/route-access.js';
import { AppError } from '../../platform/errors/app-error.js';
import { sendData } from '../../platform/http/envelope.js';
import { ListQuerySchema, pageOf, parseListQuery } from '../../platform/http/list-query.js';
import { dataEnvelope, listEnvelope, NoContent } from '../../platform/http/route-docs.js';
import { acceptPendingInvitations } from '../records/invitations.js';
import {
  createOrganizationOwnedBy,
  getOrganization,
  listOrganizationsOfUser,
  renameOrganization,
} from '../records/organizations.js';
import type { OrganizationRecord } from '../records/record-types.js';
import { getUser } from '../records/users.js';
import { auditRequest } from '../access/request-audit.js';
import { onOrganization } from './access.js';
import { deleteEmptyOrganization } from './erase.js';
import { authorizedOrganization, callingUser } from './request-caller.js';
import {
  CreateOrganizationBodySchema,
  OrganizationParamsSchema,
  OrganizationSchema,
  UpdateOrganizationBodySchema,
} from './schemas.js';

const LIST_ACCESS: RouteAccess = { minRole: 'authenticated', access: 'read' };
/** Any signed-in user may create an organization; an API key belongs to one and may not make more. */
const CREATE_ACCESS: RouteAccess = { minRole: 'authenticated', access: 'mutate', apiKeys: false };
const TAGS = ['organizations'];

function loadOrganization(db: Parameters<typeof getOrganization>[0], id: string): OrganizationRecord {
  const organization = getOrganization(db, id);
  if (!organization) throw new AppError('organization.not_found', `No organization ${id} among yours.`);
  return organization;
}

/**
 * GET, POST /v1/organizations; GET (member), PATCH (organization_admin), DELETE
 * (organization_owner) /v1/organizations/:id (docs/organizations.md "Routes").
 */
export const organizationRoutes: RoutePlugin = async (plainApp, { services }) => {
  const app = plainApp.withTypeProvider<ZodTypeProvider>();
  const db = services.controlDb;

  // A user's memberships (invitations of a verified address join first); an API key: its own organization.
  app.get(
    '/v1/organizations',
    {
      config: { access: LIST_ACCESS, errors: [] },
      schema: {
        summary: "List the caller's organizations with the caller's role in each (an API key: its own organization)",
        tags: TAGS,
        querystring: ListQuerySchema,
        response: { 200: listEnvelope(OrganizationSchema) },
      },
    },
    async (request, reply) => {
      const query = parseListQuery(request.query);
      const principal = request.principal;
      if (principal.kind === 'api_key') {
        const own = getOrganization(db, principal.organizationId)!;
        const items = query.after === undefined || own.id > query.after ? [{ ...own, role: principal.role }] : [];
        return sendData(
          request,
          reply,
          pageOf(items, query, (o) => o.id),
        );
      }
      const user = callingUser(request);
      const account = getUser(db, user.userId);
      if (account?.emailVerified)
        acceptPendingInvitations(db, { userId: account.id, email: account.email }, services.now());
      return sendData(
        request,
        reply,
        pageOf(listOrganizationsOfUser(db, user.userId, query), query, (o) => o.id),
      );
    },
  );

  app.post(
    '/v1/organizations',
    {
      // 401 when the session's account was deleted meanwhile.
      config: { access: CREATE_ACCESS, errors: ['auth.unauthenticated'] },
      schema: {
        summary: 'Create an organization; the caller becomes its organization_owner',
        tags: TAGS,
        body: CreateOrganizationBodySchema,
        response: { 201: dataEnvelope(OrganizationSchema) },
      },
    },
    async (request, reply) => {
      const { name } = request.body;
      const user = callingUser(request);
      if (!getUser(db, user.userId))
        throw new AppError('auth.unauthenticated', 'The account of this session no longer exists.');
      const organization = db
        .transaction(() => {
          const created = createOrganizationOwnedBy(db, { name, ownerId: user.userId }, services.now());
          auditRequest(services, request, {
            organizationId: created.id,
            action: 'organization.created',
            target: created.id,
            details: { name: created.name, slug: created.slug },
          });
          return created;
        })
        .immediate();
      return sendData(request, reply, { ...organization, role: 'organization_owner' }, 201);
    },
  );

  app.get(
    '/v1/organizations/:id',
    {
      config: { access: onOrganization('viewer', 'read'), errors: ['organization.not_found'] },
      schema: {
        summary: "Read an organization and the caller's role in it",
        tags: TAGS,
        params: OrganizationParamsSchema,
        response: { 200: dataEnvelope(OrganizationSchema) },
      },
    },
    async (request, reply) => {
      const tenant = authorizedOrganization(request);
      return sendData(request, reply, { ...loadOrganization(db, tenant.organizationId), role: tenant.role });
    },
  );

  app.patch(
    '/v1/organizations/:id',
    {
      config: { access: onOrganization('organization_admin', 'mutate'), errors: ['organization.not_found'] },
      schema: {
        summary: 'Rename an organization (its slug stays)',
        tags: TAGS,
        params: OrganizationParamsSchema,
        body: UpdateOrganizationBodySchema,
        response: { 200: dataEnvelope(OrganizationSchema) },
      },
    },
    async (request, reply) => {
      const { name } = request.body;
      const tenant = authorizedOrganization(request);
      const organization = db
        .transaction(() => {
          const before = loadOrganization(db, tenant.organizationId);
          const after = renameOrganization(db, tenant.organizationId, name)!;
          auditRequest(services, request, {
            organizationId: after.id,
            action: 'organization.updated',
            target: after.id,
            details: { name_before: before.name, name: after.name },
          });
          return after;
        })
        .immediate();
      return sendData(request, reply, { ...organization, role: tenant.role });
    },
  );

  // Synchronous only while the organization has no websites (409 organization.not_empty): erase removes those.
  app.delete(
    '/v1/organizations/:id',
    {
      config: {
        access: onOrganization('organization_owner', 'mutate', 'users'),
        errors: ['organization.not_empty', 'privacy.erasure_forbidden', 'privacy.erasure_in_progress'],
      },
      schema: {
        summary: 'Delete an organization that has no websites (erase one that has)',
        tags: TAGS,
        params: OrganizationParamsSchema,
        response: { 204: NoContent },
      },
    },
    async (request, reply) => {
      const tenant = authorizedOrganization(request);
      deleteEmptyOrganization(services, tenant.organizationId);
      services.logger.info({ requestId: request.id }, 'organization deleted');
      return reply.code(204).send();
    },
  );
};
