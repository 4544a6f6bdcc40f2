import { useEffect, useState } from 'preact/hooks';
import { call, listPath, type Page } from './api.js';
import {
  type AddMemberAnswer,
  type Entitlements,
  grantableRoles,
  type Member,
  organizationApi,
  type PendingInvitation,
  ROLES,
  type Role,
  roleAtLeast,
  roleLabel,
  when,
} from './api-organizations.js';
import { ErrorMessage } from './error-message.js';
import { ConfirmButton, type OrganizationPageProps } from './organization-parts.js';
import { useSubmit } from './use-submit.js';
import { usePagedList } from './use-paged-list.js';

/**
 * Members (any member reads), their roles, and for an admin or owner: invite by address, change a
 * role, remove, and the pending invitations with withdraw. A viewer or editor, who may not list
 * invitations, sees only how many seats they hold (seats taken minus members).
 */
export function OrganizationMembersPage({ organizationId, organization }: OrganizationPageProps) {
  const [members, setMembers] = useState<Member[]>();
  const [cursor, setCursor] = useState<string | null>(null);
  const [seats, setSeats] = useState<Entitlements['limits'][string]>();
  const [error, setError] = useState<unknown>();
  // Bumped on every reload, so the invitations list reads again after an invite or a withdrawal.
  const [reloads, setReloads] = useState(0);
  const callerRole = organization?.role;
  const manages = roleAtLeast(callerRole, 'organization_admin');

  async function load(after?: string) {
    setError(undefined);
    if (!after) setReloads((n) => n + 1);
    try {
      const [page, entitlements] = await Promise.all([
        call<Page<Member>>('GET', listPath(organizationApi(organizationId, '/members'), { limit: 50, cursor: after })),
        call<Entitlements>('GET', organizationApi(organizationId, '/entitlements')),
      ]);
      setMembers((shown) => (after && shown ? [...shown, ...page.items] : page.items));
      setCursor(page.next_cursor);
      setSeats(entitlements.limits.members);
    } catch (failure) {
      setError(failure);
    }
  }

  useEffect(() => {
    setMembers(undefined);
    void load();
  }, [organizationId]);

  const pending = members && cursor === null && seats ? Math.max(0, seats.used - members.length) : 0;

  return (
    <>
      <h1 tabIndex={-1}>Members{organization ? ` of ${organization.name}` : ''}</h1>
      {callerRole && (
        <p class="meta">
          Your role: {roleLabel(callerRole)}.{' '}
          {manages
            ? 'You may invite members and change or remove those whose role is not above yours.'
            : 'An admin or owner of the organization invites, changes and removes members.'}
        </p>
      )}
      <ErrorMessage error={error} />
      {members === undefined && !error && <p aria-busy="true">Loading…</p>}
      {members && (
        <table>
          <caption class="visually-hidden">Members and their roles</caption>
          <thead>
            <tr>
              <th scope="col">Member</th>
              <th scope="col">Role</th>
              <th scope="col">Joined</th>
              {manages && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {members.map((member) => (
              <MemberRow
                key={member.userId}
                organizationId={organizationId}
                member={member}
                callerRole={callerRole}
                manages={manages}
                onChanged={() => void load()}
              />
            ))}
          </tbody>
        </table>
      )}
      {cursor && (
        <button type="button" class="secondary" onClick={() => void load(cursor)}>
          Show more members
        </button>
      )}
      {seats && (
        <p class="meta">
          {seats.used} of {seats.limit} seats of the plan taken
          {pending > 0 &&
            `, ${pending} by pending invitation${pending === 1 ? '' : 's'} (they join once the address signs up and verifies it; an invitation expires after 7 days, inviting again resends it${manages ? ', withdrawing one frees its seat' : ''})`}
          .
        </p>
      )}
      {manages && (
        <PendingInvitations organizationId={organizationId} reloadKey={reloads} onWithdrawn={() => void load()} />
      )}
      {manages && <InviteForm organizationId={organizationId} callerRole={callerRole} onAdded={() => void load()} />}
    </>
  );
}

/** The invitations still waiting (organization_admin reads them), each with a two-step Withdraw. */
function PendingInvitations({
  organizationId,
  reloadKey,
  onWithdrawn,
}: {
  organizationId: string;
  reloadKey: number;
  onWithdrawn: () => void;
}) {
  const {
    items: invitations,
    cursor,
    error,
    load,
  } = usePagedList<PendingInvitation>((after) =>
    listPath(organizationApi(organizationId, '/invitations'), { limit: 50, cursor: after }),
  );

  // The page's first load bumps reloadKey to 1: reading at 0 as well would read twice.
  useEffect(() => {
    if (reloadKey > 0) void load();
  }, [organizationId, reloadKey]);

  return (
    <section aria-labelledby="pending-invitations">
      <h2 id="pending-invitations">Pending invitations</h2>
      <ErrorMessage error={error} />
      {invitations === undefined && !error && <p aria-busy="true">Loading…</p>}
      {invitations?.length === 0 && (
        <p class="meta">
          No invitation is waiting. Inviting an address without an account mails it an invitation, which waits here
          until the address signs up and confirms it (7 days at most).
        </p>
      )}
      {invitations && invitations.length > 0 && (
        <table>
          <caption class="visually-hidden">Invitations waiting for their address</caption>
          <thead>
            <tr>
              <th scope="col">Address</th>
              <th scope="col">Role</th>
              <th scope="col">Invited</th>
              <th scope="col">Expires</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {invitations.map((invitation) => (
              <tr key={invitation.id}>
                <td>{invitation.email}</td>
                <td class="nowrap">{roleLabel(invitation.role)}</td>
                <td>
                  <span class="cell-label">Invited </span>
                  <time dateTime={invitation.createdAt}>{when(invitation.createdAt)}</time>
                  {invitation.invitedByEmail && <span class="meta"> by {invitation.invitedByEmail}</span>}
                </td>
                <td class="nowrap">
                  <span class="cell-label">Expires </span>
                  <time dateTime={invitation.expiresAt}>{when(invitation.expiresAt)}</time>
                </td>
                <td class="nowrap">
                  <ConfirmButton
                    label="Withdraw"
                    name={`Withdraw the invitation of ${invitation.email}`}
                    question={
                      <>
                        Withdraw the invitation of <strong>{invitation.email}</strong>? The mailed link stops working
                        and the seat is free at once.
                      </>
                    }
                    confirmLabel="Yes, withdraw"
                    action={async () => {
                      await call(
                        'DELETE',
                        organizationApi(organizationId, `/invitations/${encodeURIComponent(invitation.id)}`),
                      );
                      onWithdrawn();
                    }}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {cursor && (
        <button type="button" class="secondary" onClick={() => void load(cursor)}>
          Show more invitations
        </button>
      )}
    </section>
  );
}

function MemberRow({
  organizationId,
  member,
  callerRole,
  manages,
  onChanged,
}: {
  organizationId: string;
  member: Member;
  callerRole: string | undefined;
  manages: boolean;
  onChanged: () => void;
}) {
  const [role, setRole] = useState<Role>(member.role);
  useEffect(() => setRole(member.role), [member.role]);
  // Nobody changes a member above their own role: the controls are offered only where the API would allow them.
  const mayManage = manages && roleAtLeast(callerRole, member.role);
  const path = organizationApi(organizationId, `/members/${encodeURIComponent(member.userId)}`);
  const changing = useSubmit(async () => {
    await call('PATCH', path, { role });
    onChanged();
  });
  const roleId = `role-${member.userId}`;
  return (
    <tr>
      <td>{member.email}</td>
      <td class="nowrap">{roleLabel(member.role)}</td>
      <td class="nowrap">
        <time dateTime={member.createdAt}>{when(member.createdAt)}</time>
      </td>
      {manages && (
        <td>
          {mayManage ? (
            <div class="row-actions">
              <form class="compact" onSubmit={changing.submit}>
                <label for={roleId} class="visually-hidden">
                  New role of {member.email}
                </label>
                <select id={roleId} value={role} onChange={(e) => setRole(e.currentTarget.value as Role)}>
                  {grantableRoles(callerRole, ROLES).map((r) => (
                    <option key={r} value={r}>
                      {roleLabel(r)}
                    </option>
                  ))}
                </select>
                <button
                  type="submit"
                  class="secondary"
                  disabled={changing.busy || role === member.role}
                  aria-label={`Change the role of ${member.email}`}
                >
                  Change role
                </button>
              </form>
              <ErrorMessage error={changing.error} />
              <ConfirmButton
                label="Remove"
                name={`Remove ${member.email}`}
                question={
                  <>
                    Remove <strong>{member.email}</strong> from the organization? They lose access at once.
                  </>
                }
                confirmLabel="Yes, remove"
                action={async () => {
                  await call('DELETE', path);
                  onChanged();
                }}
              />
            </div>
          ) : (
            <span class="meta">Above your role</span>
          )}
        </td>
      )}
    </tr>
  );
}

function InviteForm({
  organizationId,
  callerRole,
  onAdded,
}: {
  organizationId: string;
  callerRole: string | undefined;
  onAdded: () => void;
}) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [done, setDone] = useState<string>();
  const { busy, error, submit } = useSubmit(async () => {
    setDone(undefined);
    const answer = await call<AddMemberAnswer>('POST', organizationApi(organizationId, '/members'), {
      email: email.trim(),
      role,
    });
    if ('member' in answer)
      setDone(`${answer.member.email} had an account and is a member now, as ${roleLabel(answer.member.role)}.`);
    else
      setDone(
        answer.mailSent
          ? `${answer.invitation.email} has no account yet: an invitation mail went out. They join as ${roleLabel(answer.invitation.role)} once they sign up and verify the address (the invitation expires ${when(answer.invitation.expiresAt)}).`
          : `${answer.invitation.email} has no account yet: the invitation is saved, but its mail could not be sent. Invite the address again to resend it.`,
      );
    setEmail('');
    onAdded();
  });
  return (
    <form onSubmit={submit} class="inline">
      <h2>Invite a member</h2>
      <label>
        Email address
        <input
          type="email"
          name="member-email"
          required
          autocomplete="off"
          value={email}
          onInput={(e) => setEmail(e.currentTarget.value)}
        />
      </label>
      <label>
        Role
        <select name="member-role" value={role} onChange={(e) => setRole(e.currentTarget.value as Role)}>
          {grantableRoles(callerRole, ROLES).map((r) => (
            <option key={r} value={r}>
              {roleLabel(r)}
            </option>
          ))}
        </select>
      </label>
      <ErrorMessage error={error} />
      {done && <p role="status">{done}</p>}
      <button type="submit" disabled={busy}>
        Invite
      </button>
    </form>
  );
}
