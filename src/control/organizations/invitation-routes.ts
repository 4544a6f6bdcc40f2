import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { RoutePlugin } from '../../platform/app/index.js';
import { auditRequest } from '../access/index.js';
import { AppError } from '../../platform/errors/index.js';
import {
  sendData,
  ListQuerySchema,
  pageOf,
  parseListQuery,
  listEnvelope,
  NoContent,
} from '../../platform/http/index.js';
import { listPendingInvitations, withdrawInvitation, type PendingInvitationRecord } from '../records/index.js';
import { onOrganization } from './access.js';
import { presentInvitation } from './members.js';
import { authorizedOrganization } from './request-caller.js';
import { InvitationParamsSchema, OrganizationParamsSchema, PendingInvitationSchema } from './schemas.js';

const TAGS = ['members'];

function presentPendingInvitation(invitation: PendingInvitationRecord) {
  return {
    ...presentInvitation(invitation),
    invitedBy: invitation.invitedBy,
    invitedByEmail: invitation.invitedByEmail,
  };
}

/**
 * GET (organization_admin) and DELETE (organization_admin, users only) /v1/organizations/:id/invitations[/:invitationId]:
 * the pending invitations POST .../members made for addresses without an account, and their withdrawal
 * (docs/organizations.md "Invitations"). Never the mailed token or its hash.
 */
export const invitationRoutes: RoutePlugin = async (plainApp, { services }) => {
  const app = plainApp.withTypeProvider<ZodTypeProvider>();
  const db = services.controlDb;

  app.get(
    '/v1/organizations/:id/invitations',
    {
      config: { access: onOrganization('organization_admin', 'read'), errors: [] },
      schema: {
        summary: 'List the pending invitations (not accepted, not expired) by id',
        tags: TAGS,
        params: OrganizationParamsSchema,
        querystring: ListQuerySchema,
        response: { 200: listEnvelope(PendingInvitationSchema) },
      },
    },
    async (request, reply) => {
      const query = parseListQuery(request.query);
      const tenant = authorizedOrganization(request);
      return sendData(
        request,
        reply,
        pageOf(
          listPendingInvitations(db, tenant.organizationId, query, services.now()),
          query,
          (i) => i.id,
          presentPendingInvitation,
        ),
      );
    },
  );

  // The address no longer joins and its seat is free at once; the mailed link stops working.
  app.delete(
    '/v1/organizations/:id/invitations/:invitationId',
    {
      config: {
        access: onOrganization('organization_admin', 'mutate', 'users'),
        errors: ['organization.invitation_not_found'],
      },
      schema: {
        summary: 'Withdraw a pending invitation: the address no longer joins and its seat is free',
        tags: TAGS,
        params: InvitationParamsSchema,
        response: { 204: NoContent },
      },
    },
    async (request, reply) => {
      const tenant = authorizedOrganization(request);
      const { invitationId } = request.params;
      db.transaction(() => {
        const withdrawn = withdrawInvitation(db, tenant.organizationId, invitationId, services.now());
        if (!withdrawn)
          throw new AppError(
            'organization.invitation_not_found',
            `No pending invitation ${invitationId} in this organization (accepted, withdrawn or expired): see GET /v1/organizations/:id/invitations.`,
          );
        auditRequest(services, request, {
          organizationId: tenant.organizationId,
          action: 'member.invitation_withdrawn',
          target: withdrawn.email,
          details: { invitation_id: withdrawn.id, role: withdrawn.role },
        });
      }).immediate();
      return reply.code(204).send();
    },
  );
};
