import { useEffect, useState } from 'preact/hooks';
import { call, type Organization, type User } from './api.js';
import { Notice } from './account-parts.js';
import { ErrorMessage } from './error-message.js';
import { listOrganizations } from './organization-list-page.js';
import { BASE, websitesPath } from './router.js';

/**
 * The invitation mail's link. The API has no route that takes the invitation's token: an invited
 * address joins when it is confirmed (POST /v1/auth/verify-email) or, once confirmed, when it lists
 * its organizations (GET /v1/organizations). So this page lists them, or says to confirm first.
 */
export function InvitationPage(_props: { token?: string }) {
  const [user, setUser] = useState<User>();
  const [organizations, setOrganizations] = useState<Organization[]>();
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    void (async () => {
      const me = await call<{ user: User }>('GET', '/v1/auth/me');
      setUser(me.user);
      if (me.user.emailVerified) setOrganizations((await listOrganizations()).items);
    })().catch(setError);
  }, []);

  return (
    <>
      <h1 tabIndex={-1}>Join an organization</h1>
      <ErrorMessage error={error} />
      {!user && !error && <p aria-busy="true">Loading…</p>}
      {user && !user.emailVerified && (
        <>
          <p>
            Invitations go to an address: you join once <strong>{user.email}</strong> is confirmed. Open the link in the
            mail sent when you signed up (&ldquo;Confirm your email address&rdquo;); then come back to this link.
          </p>
          <p>
            Lost that mail? A <a href={`${BASE}/forgot-password`}>password reset</a> confirms the address too. Was the
            invitation sent to another address? Sign out and create an account with that one.
          </p>
        </>
      )}
      {organizations && (
        <>
          <Notice>
            <p>
              Every invitation of <strong>{user!.email}</strong> that had not expired is accepted.
            </p>
          </Notice>
          {organizations.length === 0 ? (
            <p class="empty">
              No organization lists you: the invitation went to another address, expired (after 7 days) or was
              withdrawn. Ask the person who invited you to invite {user!.email}.
            </p>
          ) : (
            <ul class="cards" aria-label="Your organizations">
              {organizations.map((organization) => (
                <li key={organization.id}>
                  <a href={websitesPath(organization.id)}>
                    <strong>{organization.name}</strong>
                  </a>
                  <span class="meta">{organization.role.replace(/_/g, ' ')}</span>
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </>
  );
}
