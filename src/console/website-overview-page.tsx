import { useEffect, useRef, useState } from 'preact/hooks';
import { call, type Organization } from './api.js';
import { ErrorMessage } from './error-message.js';
import { listOrganizations } from './organization-list-page.js';
import { BASE, navigate, websitePath, websitesPath } from './router.js';
import { useSubmit } from './use-submit.js';
import type { WebsiteDetail } from './website-api.js';
import type { WebsitePageProps } from './website-layout.js';
import { confirmsDomain, STATE_LABELS, timeText } from './website-text.js';

/**
 * A website's fields, and what its editors and admins may change (docs/websites.md "Routes"):
 * name, brand and language (PATCH), alias domains, transfer to another organization the caller
 * owns, and delete with the domain typed again. The API refuses what the caller's role may not.
 */
export function WebsiteOverviewPage({ website: shown, reload }: WebsitePageProps) {
  const website = shown as WebsiteDetail;
  const { verification } = website;
  return (
    <>
      <h1 tabIndex={-1}>{website.name}</h1>
      <dl class="fields">
        <div>
          <dt>Domain</dt>
          <dd>{website.domain}</dd>
        </div>
        <div>
          <dt>Name AI consumers see</dt>
          <dd>{website.brand ?? `${website.name} (the name)`}</dd>
        </div>
        <div>
          <dt>Default language</dt>
          <dd>{website.defaultLanguage}</dd>
        </div>
        <div>
          <dt>Verification</dt>
          <dd>
            <span class={`state state-${verification.state}`}>
              {STATE_LABELS[verification.state as keyof typeof STATE_LABELS] ?? verification.state}
            </span>
            {verification.method && ` by ${verification.method}`}; trust tier {verification.trustTier}, score{' '}
            {verification.trustScore}.{' '}
            <a href={websitePath(website.id, 'verification')}>
              {verification.state === 'verified' ? 'Verification details' : 'Verify ownership'}
            </a>
          </dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>{timeText(website.createdAt)}</dd>
        </div>
        <div>
          <dt>Id</dt>
          <dd>
            <code>{website.id}</code>
          </dd>
        </div>
      </dl>
      <EditWebsiteForm website={website} reload={reload} />
      <Aliases website={website} reload={reload} />
      <TransferWebsite website={website} reload={reload} />
      <DeleteWebsite website={website} />
    </>
  );
}

interface Props {
  website: WebsiteDetail;
  reload: () => Promise<void>;
}

function EditWebsiteForm({ website, reload }: Props) {
  const [name, setName] = useState(website.name);
  const [brand, setBrand] = useState(website.brand ?? '');
  const [language, setLanguage] = useState(website.defaultLanguage);
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    setName(website.name);
    setBrand(website.brand ?? '');
    setLanguage(website.defaultLanguage);
  }, [website.id]);

  const { busy, error, submit } = useSubmit(async () => {
    setSaved(false);
    // Only what changed: PATCH refuses an empty body, and an untouched field stays as it is.
    const changes: Record<string, string | null> = {};
    if (name.trim() !== website.name) changes.name = name.trim();
    const newBrand = brand.trim() === '' ? null : brand.trim();
    if (newBrand !== website.brand) changes.brand = newBrand;
    if (language.trim() !== website.defaultLanguage) changes.defaultLanguage = language.trim();
    if (Object.keys(changes).length === 0) return setSaved(true);
    await call<WebsiteDetail>('PATCH', `/v1/websites/${encodeURIComponent(website.id)}`, changes);
    await reload();
    setSaved(true);
  });

  return (
    <form onSubmit={submit} class="inline" aria-labelledby="edit-website">
      <h2 id="edit-website">Edit the website</h2>
      <p class="meta">The domain never changes: add another domain as an alias below, or create a website for it.</p>
      <label>
        Name
        <input name="name" required value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      <label>
        Name AI consumers see <small>(empty: the name)</small>
        <input name="brand" value={brand} onInput={(e) => setBrand(e.currentTarget.value)} />
      </label>
      <label>
        Default language <small>(a BCP-47 tag such as en or fr-CA)</small>
        <input name="language" required value={language} onInput={(e) => setLanguage(e.currentTarget.value)} />
      </label>
      <ErrorMessage error={error} />
      {saved && !error && (
        <p role="status" class="ok">
          Saved.
        </p>
      )}
      <button type="submit" disabled={busy}>
        Save changes
      </button>
    </form>
  );
}

function Aliases({ website, reload }: Props) {
  const [domain, setDomain] = useState('');
  const [removeError, setRemoveError] = useState<unknown>();
  const input = useRef<HTMLInputElement>(null);
  const adding = useSubmit(async () => {
    await call<WebsiteDetail>('POST', `/v1/websites/${encodeURIComponent(website.id)}/aliases`, {
      domain: domain.trim(),
    });
    setDomain('');
    await reload();
  });
  async function remove(alias: string) {
    setRemoveError(undefined);
    try {
      await call<void>('DELETE', `/v1/websites/${encodeURIComponent(website.id)}/aliases/${encodeURIComponent(alias)}`);
      await reload();
      // Its Remove button is gone with it: the focus goes to the field that adds one.
      input.current?.focus();
    } catch (failure) {
      setRemoveError(failure);
    }
  }

  return (
    <section class="inline" aria-labelledby="aliases">
      <h2 id="aliases">Alias domains</h2>
      {website.aliases.length === 0 ? (
        <p class="empty">
          No alias yet. Add the other domains this website answers on (www., an old domain); each is verified on its own
          before items may use it.
        </p>
      ) : (
        <ul class="cards" aria-label="Alias domains">
          {website.aliases.map((alias) => (
            <li key={alias.domain} class="row">
              <span>
                <strong>{alias.domain}</strong>{' '}
                <span class={`state state-${alias.state}`}>{STATE_LABELS[alias.state] ?? alias.state}</span>
              </span>
              <button
                type="button"
                class="secondary"
                aria-label={`Remove alias ${alias.domain}`}
                onClick={() => void remove(alias.domain)}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <ErrorMessage error={removeError} />
      <form onSubmit={adding.submit}>
        <label>
          Alias domain
          <input
            name="alias"
            ref={input}
            required
            placeholder="www.example.com"
            autocomplete="off"
            value={domain}
            onInput={(e) => setDomain(e.currentTarget.value)}
          />
        </label>
        <ErrorMessage error={adding.error} />
        <button type="submit" disabled={adding.busy}>
          Add alias
        </button>
      </form>
    </section>
  );
}

function TransferWebsite({ website, reload }: Props) {
  const [organizations, setOrganizations] = useState<Organization[]>();
  const [loadError, setLoadError] = useState<unknown>();
  const [target, setTarget] = useState('');
  const [moved, setMoved] = useState<string>();
  useEffect(() => void listOrganizations().then((page) => setOrganizations(page.items), setLoadError), []);
  // The API moves a website only into an organization the caller owns.
  const targets = (organizations ?? []).filter(
    (o) => o.role === 'organization_owner' && o.id !== website.organizationId,
  );
  const chosen = target || targets[0]?.id || '';

  const { busy, error, submit } = useSubmit(async () => {
    setMoved(undefined);
    await call<WebsiteDetail>('POST', `/v1/websites/${encodeURIComponent(website.id)}/transfer`, {
      target_organization_id: chosen,
    });
    setMoved(targets.find((o) => o.id === chosen)?.name ?? chosen);
    setTarget('');
    await reload();
  });

  return (
    <form onSubmit={submit} class="inline" aria-labelledby="transfer">
      <h2 id="transfer">Transfer to another organization</h2>
      <p class="meta">
        The website moves at once with its content, verification, connectors (their tokens keep working) and webhooks.
        You must own the organization it moves to.
      </p>
      <ErrorMessage error={loadError} />
      {moved && (
        <p role="status" class="ok">
          Moved to {moved}.
        </p>
      )}
      {organizations && targets.length === 0 && (
        <p class="empty">
          You own no other organization. <a href={`${BASE}/organizations`}>Create one</a> from the organizations page
          first, or ask its owner to do the transfer.
        </p>
      )}
      {targets.length > 0 && (
        <>
          <label>
            Move to
            <select name="target" value={chosen} onChange={(e) => setTarget(e.currentTarget.value)}>
              {targets.map((o) => (
                <option key={o.id} value={o.id}>
                  {o.name}
                </option>
              ))}
            </select>
          </label>
          <ErrorMessage error={error} />
          <button type="submit" disabled={busy}>
            Transfer website
          </button>
        </>
      )}
    </form>
  );
}

function DeleteWebsite({ website }: { website: WebsiteDetail }) {
  const [typed, setTyped] = useState('');
  const matches = confirmsDomain(typed, website.domain);
  const { busy, error, submit } = useSubmit(async () => {
    await call<void>('DELETE', `/v1/websites/${encodeURIComponent(website.id)}`, { confirm: typed });
    navigate(websitesPath(website.organizationId));
  });

  return (
    <form onSubmit={submit} class="inline danger" aria-labelledby="delete-website">
      <h2 id="delete-website">Delete the website</h2>
      <p>
        This deletes {website.domain} for good: its content, its knowledge graph and every published version. It cannot
        be undone.
      </p>
      <label>
        Type {website.domain} to confirm
        <input
          name="confirm"
          autocomplete="off"
          spellcheck={false}
          value={typed}
          onInput={(e) => setTyped(e.currentTarget.value)}
        />
      </label>
      <ErrorMessage error={error} />
      <button type="submit" class="danger" disabled={!matches || busy}>
        Delete website
      </button>
    </form>
  );
}
