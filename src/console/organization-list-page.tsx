import { useEffect, useState } from 'preact/hooks';
import { call, listPath, type Organization, type Page } from './api.js';
import { ErrorMessage } from './error-message.js';
import { OrganizationSettings } from './organization-settings.js';
import { useSubmit } from './use-submit.js';
import { websitesPath } from './router.js';

/** The organizations the caller belongs to, first 100, sorted by the API. */
export async function listOrganizations(): Promise<Page<Organization>> {
  return call<Page<Organization>>('GET', listPath('/v1/organizations', { limit: 100 }));
}

/** The caller's organizations; choosing one opens its websites (the organization is in the address). */
export function OrganizationListPage() {
  const [page, setPage] = useState<Page<Organization>>();
  const [error, setError] = useState<unknown>();
  const [name, setName] = useState('');

  const load = () => listOrganizations().then(setPage, setError);
  useEffect(() => void load(), []);

  const creating = useSubmit(async () => {
    await call<Organization>('POST', '/v1/organizations', { name });
    setName('');
    await load();
  });

  return (
    <>
      <h1 tabIndex={-1}>Organizations</h1>
      <ErrorMessage error={error} />
      {page === undefined && !error && <p aria-busy="true">Loading…</p>}
      {page && page.items.length === 0 && (
        <p class="empty">
          You belong to no organization yet. Create one below, or ask an owner of an existing one to invite your
          address.
        </p>
      )}
      {page && page.items.length > 0 && (
        <ul class="cards" aria-label="Your organizations">
          {page.items.map((organization) => (
            <li key={organization.id}>
              <a href={websitesPath(organization.id)}>
                <strong>{organization.name}</strong>
              </a>
              <span class="meta">
                {organization.slug} · {organization.role.replace(/_/g, ' ')} · plan {organization.plan}
              </span>
              <OrganizationSettings organization={organization} onChanged={() => void load()} />
            </li>
          ))}
        </ul>
      )}
      <form onSubmit={creating.submit} class="inline">
        <h2>New organization</h2>
        <label>
          Name
          <input
            name="organization-name"
            required
            maxLength={200}
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </label>
        <ErrorMessage error={creating.error} />
        <button type="submit" disabled={creating.busy}>
          Create organization
        </button>
      </form>
    </>
  );
}
