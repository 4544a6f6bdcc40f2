import type { AppServices } from '../../platform/app/index.js';
import { issueMailToken, MAIL_TOKEN_LIFETIME_MS, hashOpaqueToken } from '../accounts/index.js';
import {
  type AuditActor,
  appendAudit,
  saveInvitation,
  type InvitationRecord,
  addMember,
  type MemberRecord,
  type OrganizationRecord,
  type Role,
  findUserByEmail,
  getUser,
} from '../records/index.js';
import type { OrganizationMail } from './organization-mail.js';

export type AddedMember =
  { kind: 'member'; member: MemberRecord } | { kind: 'invitation'; invitation: InvitationRecord; mailSent: boolean };

/**
 * POST /v1/organizations/:id/members {email, role}: an existing user becomes a member at once; an
 * unknown address gets an invitation mail and a pending invitation, which it joins once the
 * address is verified (docs/organizations.md "Invitations"). Inviting the same address again
 * replaces its invitation (the earlier mailed token stops working).
 */
export async function addMemberByEmail(
  services: Pick<AppServices, 'controlDb' | 'now'>,
  mail: OrganizationMail,
  input: { organization: OrganizationRecord; email: string; role: Role; actor: AuditActor; requestId: string },
): Promise<AddedMember> {
  const db = services.controlDb;
  const now = services.now();
  const { organization, email, role, actor } = input;
  const user = findUserByEmail(db, email);
  if (user) {
    const member = db
      .transaction(() => {
        const added = addMember(db, { organizationId: organization.id, userId: user.id, role }, now);
        appendAudit(
          db,
          {
            organizationId: organization.id,
            actor,
            action: 'member.added',
            target: user.id,
            requestId: input.requestId,
            details: { email: user.email, role },
          },
          now,
        );
        return added;
      })
      .immediate();
    return { kind: 'member', member };
  }
  const { invitation, token } = db
    .transaction(() => {
      db.prepare(
        'UPDATE mail_tokens SET used_at = ? WHERE used_at IS NULL AND token_hash = (SELECT token_hash FROM organization_invitations WHERE organization_id = ? AND email = ?)',
      ).run(now, organization.id, email);
      const ttlMs = MAIL_TOKEN_LIFETIME_MS.invitation;
      const token = issueMailToken(
        db,
        'invitation',
        { email, payload: { organization_id: organization.id, role }, ttlMs },
        now,
      );
      const invitation = saveInvitation(
        db,
        {
          organizationId: organization.id,
          email,
          role,
          invitedBy: 'id' in actor ? actor.id : null,
          tokenHash: hashOpaqueToken(token),
          expiresAt: now + ttlMs,
        },
        now,
      );
      appendAudit(
        db,
        {
          organizationId: organization.id,
          actor,
          action: 'member.invited',
          target: email,
          requestId: input.requestId,
          details: { role },
        },
        now,
      );
      return { invitation, token };
    })
    .immediate();
  const inviter = 'id' in actor && actor.kind === 'user' ? getUser(db, actor.id)?.email : undefined;
  const mailSent = await mail.send({
    kind: 'invitation',
    to: email,
    token,
    organizationName: organization.name,
    role,
    fromEmail: inviter ?? 'An administrator of the organization',
  });
  return { kind: 'invitation', invitation, mailSent };
}

/** An invitation as the routes answer it (never its token). */
export function presentInvitation(invitation: InvitationRecord) {
  return {
    id: invitation.id,
    email: invitation.email,
    role: invitation.role,
    createdAt: new Date(invitation.createdAt).toISOString(),
    expiresAt: new Date(invitation.expiresAt).toISOString(),
  };
}
