import { useEffect, useState } from 'preact/hooks';
import { call, listPath, type Organization, type Website } from './api.js';
import { ErrorMessage } from './error-message.js';
import { useSubmit } from './use-submit.js';
import { websitePath } from './router.js';
import { usePagedList } from './use-paged-list.js';

const VERIFICATION_LABELS: Record<string, string> = {
  verified: 'Verified',
  pending: 'Not verified yet',
  grace: 'Verified (re-check due)',
  failed: 'Verification failed',
  revoked: 'Verification revoked',
};

/** The websites of one organization with their verification state, and a form to add one. */
export function OrganizationWebsitesPage({
  organizationId,
  organization,
}: {
  organizationId: string;
  organization: Organization | undefined;
}) {
  const {
    items: websites,
    setItems: setWebsites,
    cursor,
    error,
    load,
  } = usePagedList<Website>((after) =>
    listPath(`/v1/organizations/${encodeURIComponent(organizationId)}/websites`, { limit: 50, cursor: after }),
  );

  useEffect(() => {
    setWebsites(undefined);
    void load();
  }, [organizationId]);

  return (
    <>
      <h1 tabIndex={-1}>Websites{organization ? ` of ${organization.name}` : ''}</h1>
      <ErrorMessage error={error} />
      {websites === undefined && !error && <p aria-busy="true">Loading…</p>}
      {websites && websites.length === 0 && (
        <p class="empty">
          No websites yet. Add your website's domain below; then prove that you own it (verification) and connect its
          content.
        </p>
      )}
      {websites && websites.length > 0 && (
        <table>
          <caption class="visually-hidden">Websites and their verification</caption>
          <thead>
            <tr>
              <th scope="col">Domain</th>
              <th scope="col">Name</th>
              <th scope="col">Verification</th>
            </tr>
          </thead>
          <tbody>
            {websites.map((website) => (
              <tr key={website.id}>
                <td>
                  <a href={websitePath(website.id)}>{website.domain}</a>
                </td>
                <td>{website.name}</td>
                <td>
                  <span class={`state state-${website.verification.state}`}>
                    {VERIFICATION_LABELS[website.verification.state] ?? website.verification.state}
                  </span>
                  {website.verification.method && <span class="meta"> by {website.verification.method}</span>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {cursor && (
        <button type="button" class="secondary" onClick={() => void load(cursor)}>
          Show more websites
        </button>
      )}
      <CreateWebsiteForm organizationId={organizationId} onCreated={() => void load()} />
    </>
  );
}

function CreateWebsiteForm({ organizationId, onCreated }: { organizationId: string; onCreated: () => void }) {
  const [domain, setDomain] = useState('');
  const [name, setName] = useState('');
  const { busy, error, submit } = useSubmit(async () => {
    await call<Website>('POST', `/v1/organizations/${encodeURIComponent(organizationId)}/websites`, {
      domain: domain.trim(),
      name: name.trim(),
    });
    setDomain('');
    setName('');
    onCreated();
  });

  return (
    <form onSubmit={submit} class="inline">
      <h2>Add a website</h2>
      <label>
        Domain
        <input
          name="domain"
          required
          placeholder="example.com"
          autocomplete="off"
          value={domain}
          onInput={(e) => setDomain(e.currentTarget.value)}
        />
      </label>
      <label>
        Name
        <input name="name" required value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      <ErrorMessage error={error} />
      <button type="submit" disabled={busy}>
        Add website
      </button>
    </form>
  );
}
