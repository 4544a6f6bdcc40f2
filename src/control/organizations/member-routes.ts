import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { RoutePlugin } from '../../platform/app/route-plugin.js';
import { actorOf, auditRequest } from '../access/request-audit.js';
import { sendData } from '../../platform/http/envelope.js';
import { ListQuerySchema, pageOf, parseListQuery } from '../../platform/http/list-query.js';
import { dataEnvelope, listEnvelope, NoContent } from '../../platform/http/route-docs.js';
import { getOrganization } from '../records/organizations.js';
import { changeMemberRole, listMembers, removeMember } from '../records/member-rows.js';
import { onOrganization } from './access.js';
import type { MailRouteOptions } from './organization-mail.js';
import { addMemberByEmail, presentInvitation } from './members.js';
import { authorizedOrganization } from './request-caller.js';
import { assertMayGrant, assertMayManage } from './role-policy.js';
import {
  AddedMemberSchema,
  AddMemberBodySchema,
  ChangedMemberSchema,
  ChangeMemberRoleBodySchema,
  InvitedMemberSchema,
  MemberParamsSchema,
  MemberSchema,
  OrganizationParamsSchema,
} from './schemas.js';

const TAGS = ['members'];

/**
 * GET (member), POST, PATCH, DELETE (organization_admin, users only) /v1/organizations/:id/members[/:userId].
 * Nobody grants a role above their own or changes a member above it (403 auth.forbidden); the last owner stays.
 */
export const memberRoutes: RoutePlugin<MailRouteOptions> = async (plainApp, { services, mail }) => {
  const app = plainApp.withTypeProvider<ZodTypeProvider>();
  const db = services.controlDb;

  app.get(
    '/v1/organizations/:id/members',
    {
      config: { access: onOrganization('viewer', 'read'), errors: [] },
      schema: {
        summary: "List an organization's members by user id",
        tags: TAGS,
        params: OrganizationParamsSchema,
        querystring: ListQuerySchema,
        response: { 200: listEnvelope(MemberSchema) },
      },
    },
    async (request, reply) => {
      const query = parseListQuery(request.query);
      const tenant = authorizedOrganization(request);
      return sendData(
        request,
        reply,
        pageOf(listMembers(db, tenant.organizationId, query), query, (m) => m.userId),
      );
    },
  );

  // 201 {member} for an existing user; 202 {invitation, mailSent} for an address without an account.
  app.post(
    '/v1/organizations/:id/members',
    {
      // A new member or invitation takes a seat of the plan (403 entitlement.limit_reached past it).
      config: {
        access: onOrganization('organization_admin', 'mutate', 'users'),
        errors: ['auth.forbidden', 'organization.member_exists', 'entitlement.limit_reached'],
      },
      schema: {
        summary: 'Add an existing user as a member, or invite an address without an account by mail',
        tags: TAGS,
        params: OrganizationParamsSchema,
        body: AddMemberBodySchema,
        response: {
          201: {
            description: 'The user of that address is a member now',
            content: { 'application/json': { schema: dataEnvelope(AddedMemberSchema) } },
          },
          202: {
            description:
              'The address has no account: it was invited, and joins once it signs up and verifies the address',
            content: { 'application/json': { schema: dataEnvelope(InvitedMemberSchema) } },
          },
        },
      },
    },
    async (request, reply) => {
      const { email, role } = request.body;
      const tenant = authorizedOrganization(request);
      assertMayGrant(tenant.role, role);
      const organization = getOrganization(db, tenant.organizationId)!;
      const added = await addMemberByEmail(services, mail, {
        organization,
        email,
        role,
        actor: actorOf(request.principal),
        requestId: request.id,
      });
      if (added.kind === 'member') return sendData(request, reply, { member: added.member }, 201);
      return sendData(
        request,
        reply,
        { invitation: presentInvitation(added.invitation), mailSent: added.mailSent },
        202,
      );
    },
  );

  app.patch(
    '/v1/organizations/:id/members/:userId',
    {
      config: {
        access: onOrganization('organization_admin', 'mutate', 'users'),
        errors: ['auth.forbidden', 'member.not_found', 'organization.last_owner'],
      },
      schema: {
        summary: "Change a member's role",
        tags: TAGS,
        params: MemberParamsSchema,
        body: ChangeMemberRoleBodySchema,
        response: { 200: dataEnvelope(ChangedMemberSchema) },
      },
    },
    async (request, reply) => {
      const { role } = request.body;
      const tenant = authorizedOrganization(request);
      assertMayGrant(tenant.role, role);
      const member = db
        .transaction(() => {
          const changed = changeMemberRole(
            db,
            { organizationId: tenant.organizationId, userId: request.params.userId, role },
            (current) => assertMayManage(tenant.role, current),
          );
          auditRequest(services, request, {
            organizationId: tenant.organizationId,
            action: 'member.role_changed',
            target: changed.member.userId,
            details: { role_before: changed.previous, role },
          });
          return changed.member;
        })
        .immediate();
      return sendData(request, reply, { member });
    },
  );

  app.delete(
    '/v1/organizations/:id/members/:userId',
    {
      config: {
        access: onOrganization('organization_admin', 'mutate', 'users'),
        errors: ['auth.forbidden', 'member.not_found', 'organization.last_owner'],
      },
      schema: {
        summary: 'Remove a member from an organization',
        tags: TAGS,
        params: MemberParamsSchema,
        response: { 204: NoContent },
      },
    },
    async (request, reply) => {
      const tenant = authorizedOrganization(request);
      db.transaction(() => {
        const previous = removeMember(
          db,
          { organizationId: tenant.organizationId, userId: request.params.userId },
          (current) => assertMayManage(tenant.role, current),
        );
        auditRequest(services, request, {
          organizationId: tenant.organizationId,
          action: 'member.removed',
          target: request.params.userId,
          details: { role_before: previous },
        });
      }).immediate();
      return reply.code(204).send();
    },
  );
};
