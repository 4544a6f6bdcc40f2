import { z } from 'zod';
import type { RoutePlugin } from '../app/route-plugin.js';
import { actorOf, auditRequest } from '../auth/request-audit.js';
import { sendData } from '../http/envelope.js';
import { pageOf, parseListQuery } from '../http/list-query.js';
import { getOrganization } from '../tenancy/organizations.js';
import { changeMemberRole, listMembers, removeMember } from '../tenancy/members.js';
import { EmailSchema, ROLES } from '../tenancy/records.js';
import { onOrganization } from './access.js';
import type { MailRouteOptions } from './mail.js';
import { addMemberByEmail, presentInvitation } from './members.js';
import { parseInput } from './parse-input.js';
import { authorizedOrganization } from './request-caller.js';
import { assertMayGrant, assertMayManage } from './role-policy.js';

const RoleSchema = z.enum(ROLES, { error: `must be one of ${ROLES.join(', ')}` });
const AddMemberBodySchema = z.strictObject({ email: EmailSchema, role: RoleSchema });
const ChangeRoleBodySchema = z.strictObject({ role: RoleSchema });

type MemberParams = { Params: { id: string; userId: string } };

/**
 * GET (member), POST, PATCH, DELETE (organization_admin, users only) /v1/organizations/:id/members[/:userId].
 * Nobody grants a role above their own or changes a member above it; the last owner stays.
 */
export const memberRoutes: RoutePlugin<MailRouteOptions> = async (app, { services, mail }) => {
  const db = services.controlDb;

  app.get<{ Params: { id: string } }>('/v1/organizations/:id/members', { config: { access: onOrganization('viewer', 'read') } }, async (request, reply) => {
    const query = parseListQuery(request.query);
    const tenant = authorizedOrganization(request);
    return sendData(request, reply, pageOf(listMembers(db, tenant.organizationId, query), query, (m) => m.userId));
  });

  // 201 {member} for an existing user; 202 {invitation, mailSent} for an address without an account.
  app.post<{ Params: { id: string } }>('/v1/organizations/:id/members', { config: { access: onOrganization('organization_admin', 'mutate', 'users') } }, async (request, reply) => {
    const { email, role } = parseInput(AddMemberBodySchema, request.body, 'member');
    const tenant = authorizedOrganization(request);
    assertMayGrant(tenant.role, role);
    const organization = getOrganization(db, tenant.organizationId)!;
    const added = await addMemberByEmail(services, mail, { organization, email, role, actor: actorOf(request.principal), requestId: request.id });
    if (added.kind === 'member') return sendData(request, reply, { member: added.member }, 201);
    return sendData(request, reply, { invitation: presentInvitation(added.invitation), mailSent: added.mailSent }, 202);
  });

  app.patch<MemberParams>('/v1/organizations/:id/members/:userId', { config: { access: onOrganization('organization_admin', 'mutate', 'users') } }, async (request, reply) => {
    const { role } = parseInput(ChangeRoleBodySchema, request.body, 'role change');
    const tenant = authorizedOrganization(request);
    assertMayGrant(tenant.role, role);
    const member = db.transaction(() => {
      const changed = changeMemberRole(db, { organizationId: tenant.organizationId, userId: request.params.userId, role }, (current) => assertMayManage(tenant.role, current));
      auditRequest(services, request, { organizationId: tenant.organizationId, action: 'member.role_changed', target: changed.member.userId, details: { role_before: changed.previous, role } });
      return changed.member;
    }).immediate();
    return sendData(request, reply, { member });
  });

  app.delete<MemberParams>('/v1/organizations/:id/members/:userId', { config: { access: onOrganization('organization_admin', 'mutate', 'users') } }, async (request, reply) => {
    const tenant = authorizedOrganization(request);
    db.transaction(() => {
      const previous = removeMember(db, { organizationId: tenant.organizationId, userId: request.params.userId }, (current) => assertMayManage(tenant.role, current));
      auditRequest(services, request, { organizationId: tenant.organizationId, action: 'member.removed', target: request.params.userId, details: { role_before: previous } });
    }).immediate();
    return reply.code(204).send();
  });
};
