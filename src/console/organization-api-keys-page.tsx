import { useEffect, useState } from 'preact/hooks';
import { call, listPath } from './api.js';
import {
  API_KEY_ROLES,
  type ApiKey,
  type CreatedApiKey,
  grantableRoles,
  organizationApi,
  roleAtLeast,
  roleLabel,
  when,
} from './api-organizations.js';
import { ErrorMessage } from './error-message.js';
import { ConfirmButton, type OrganizationPageProps, SecretOnce } from './organization-parts.js';
import { useSubmit } from './use-submit.js';
import { usePagedList } from './use-paged-list.js';

type KeyRole = (typeof API_KEY_ROLES)[number];

/**
 * The organization's API keys (admin and owner only: the API refuses the list to others), a
 * form that creates one and shows the key once, and revoke.
 */
export function OrganizationApiKeysPage({ organizationId, organization }: OrganizationPageProps) {
  const {
    items: keys,
    setItems: setKeys,
    cursor,
    error,
    load,
  } = usePagedList<ApiKey>((after) =>
    listPath(organizationApi(organizationId, '/api-keys'), { limit: 50, cursor: after }),
  );
  const [created, setCreated] = useState<CreatedApiKey>();
  const callerRole = organization?.role;
  const manages = roleAtLeast(callerRole, 'organization_admin');

  useEffect(() => {
    setKeys(undefined);
    setCreated(undefined);
    if (manages) void load();
  }, [organizationId, manages]);

  const title = <h1 tabIndex={-1}>API keys{organization ? ` of ${organization.name}` : ''}</h1>;
  if (!organization) return title;
  if (!manages)
    return (
      <>
        {title}
        <p class="empty">
          Your role ({roleLabel(organization.role)}) does not manage API keys: an admin or owner of the organization
          creates and revokes them.
        </p>
      </>
    );

  return (
    <>
      {title}
      <p class="meta">
        A key acts for this organization with the role it was given: send it as the <code>X-Api-Key</code> header (or{' '}
        <code>Authorization: Bearer</code>). It cannot sign in, manage members, keys or transfers.
      </p>
      {created && (
        <SecretOnce label={`The new key “${created.name}”`} secret={created.key} onDone={() => setCreated(undefined)} />
      )}
      <ErrorMessage error={error} />
      {keys === undefined && !error && <p aria-busy="true">Loading…</p>}
      {keys && keys.length === 0 && (
        <p class="empty">No API keys yet. Create one below for a script, CI or the CLI on another machine.</p>
      )}
      {keys && keys.length > 0 && (
        <table>
          <caption class="visually-hidden">API keys</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Starts with</th>
              <th scope="col">Role</th>
              <th scope="col">Created</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {keys.map((key) => (
              <tr key={key.id}>
                <td>{key.name}</td>
                <td>
                  <code>{key.prefix}</code>
                </td>
                <td>{roleLabel(key.role)}</td>
                <td>
                  <time dateTime={key.createdAt}>{when(key.createdAt)}</time>
                </td>
                <td>
                  {key.revokedAt ? (
                    <span class="state-revoked">Revoked {when(key.revokedAt)}</span>
                  ) : (
                    <>
                      <span class="state-verified">Active</span>{' '}
                      <ConfirmButton
                        label="Revoke"
                        name={`Revoke ${key.name}`}
                        question={
                          <>
                            Revoke <strong>{key.name}</strong> ({key.prefix}…)? Every request with it is refused from
                            now on; this cannot be undone.
                          </>
                        }
                        confirmLabel="Yes, revoke"
                        action={async () => {
                          await call(
                            'DELETE',
                            organizationApi(organizationId, `/api-keys/${encodeURIComponent(key.id)}`),
                          );
                          await load();
                        }}
                      />
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {cursor && (
        <button type="button" class="secondary" onClick={() => void load(cursor)}>
          Show more keys
        </button>
      )}
      <CreateKeyForm
        organizationId={organizationId}
        callerRole={callerRole}
        onCreated={(key) => {
          setCreated(key);
          void load();
        }}
      />
    </>
  );
}

function CreateKeyForm({
  organizationId,
  callerRole,
  onCreated,
}: {
  organizationId: string;
  callerRole: string | undefined;
  onCreated: (key: CreatedApiKey) => void;
}) {
  const [name, setName] = useState('');
  const [role, setRole] = useState<KeyRole>('editor');
  const roles = grantableRoles(callerRole, API_KEY_ROLES);
  const { busy, error, submit } = useSubmit(async () => {
    const key = await call<CreatedApiKey>('POST', organizationApi(organizationId, '/api-keys'), {
      name: name.trim(),
      role,
    });
    setName('');
    onCreated(key);
  });
  return (
    <form onSubmit={submit} class="inline">
      <h2>Create an API key</h2>
      <label>
        Name <small>to tell keys apart, e.g. “CI deploy”</small>
        <input
          name="key-name"
          required
          maxLength={200}
          autocomplete="off"
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
        />
      </label>
      <label>
        Role <small>what the key may do; never above your own</small>
        <select name="key-role" value={role} onChange={(e) => setRole(e.currentTarget.value as KeyRole)}>
          {roles.map((r) => (
            <option key={r} value={r}>
              {roleLabel(r)}
            </option>
          ))}
        </select>
      </label>
      <ErrorMessage error={error} />
      <button type="submit" disabled={busy}>
        Create key
      </button>
    </form>
  );
}
