import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiFailure, call, listPath } from './api.js';
import { ErrorMessage } from './error-message.js';
import { websitePath } from './router.js';
import { useSubmit } from './use-submit.js';
import { type Connector, type ConnectorWithToken, SOURCE_TYPES } from './website-api.js';
import { CopyField } from './website-copy.js';
import type { WebsitePageProps } from './website-layout.js';
import { pushCommand, timeText } from './website-text.js';
import { usePagedList } from './use-paged-list.js';

const STATUS_LABELS: Record<Connector['status'], string> = {
  active: 'Active',
  suspended: 'Suspended',
  revoked: 'Deleted',
};

/** A token just issued (create or rotate): shown on this screen only, until the user dismisses it. */
interface IssuedToken {
  connector: ConnectorWithToken;
  rotated: boolean;
}

/**
 * The website's connectors (docs/websites.md "Connectors", docs/ingest.md): their state and last
 * heartbeat, create (token shown once), rotate, suspend, resume and delete. The API refuses a
 * token for a website that is not verified; the page says so and links to the verification tab.
 */
export function WebsiteConnectorsPage({ website }: WebsitePageProps) {
  const [issued, setIssued] = useState<IssuedToken>();
  const verified = website.verification.state === 'verified' || website.verification.state === 'grace';
  const listRoute = `/v1/websites/${encodeURIComponent(website.id)}/connectors`;
  const {
    items: connectors,
    setItems: setConnectors,
    cursor,
    error,
    load,
  } = usePagedList<Connector>((after) => listPath(listRoute, { limit: 50, cursor: after }));
  useEffect(() => {
    setConnectors(undefined);
    void load();
  }, [website.id]);

  return (
    <>
      <h1 tabIndex={-1}>Connectors</h1>
      <p>
        A connector pushes this website's content to nodectl, signing each request with its token:{' '}
        <code>nodectl push</code>, a plugin, or your own code following docs/ingest.md.
      </p>
      {!verified && (
        <p class="notice">
          {website.domain} is not verified yet: the API issues no connector token until it is, unless the operator
          allows it. <a href={websitePath(website.id, 'verification')}>Verify ownership first</a>.
        </p>
      )}
      {issued && <TokenShownOnce issued={issued} domain={website.domain} onDone={() => setIssued(undefined)} />}
      <ErrorMessage error={error} />
      {connectors === undefined && !error && <p aria-busy="true">Loading…</p>}
      {connectors && connectors.length === 0 && (
        <p class="empty">No connector yet. Create one below, then use its token to push the website's content.</p>
      )}
      {connectors && connectors.length > 0 && (
        <ul class="cards" aria-label="Connectors">
          {connectors.map((connector) => (
            <ConnectorCard
              key={connector.id}
              connector={connector}
              onChanged={() => void load()}
              onIssued={(token) => setIssued({ connector: token, rotated: true })}
            />
          ))}
        </ul>
      )}
      <p>
        {cursor && (
          <button type="button" class="secondary" onClick={() => void load(cursor)}>
            Show more connectors
          </button>
        )}{' '}
        {connectors && (
          <button type="button" class="secondary" onClick={() => void load()}>
            Refresh
          </button>
        )}
      </p>
      <CreateConnectorForm
        websiteId={website.id}
        onCreated={(connector) => {
          setIssued({ connector, rotated: false });
          void load();
        }}
      />
    </>
  );
}

function TokenShownOnce({ issued, domain, onDone }: { issued: IssuedToken; domain: string; onDone: () => void }) {
  const { connector } = issued;
  const heading = useRef<HTMLHeadingElement>(null);
  // The token appears above the list: the focus goes there, so keyboard and screen reader users meet it first.
  useEffect(() => heading.current?.focus(), [connector.token]);
  return (
    <section class="inline secret" aria-labelledby="token-heading">
      <h2 id="token-heading" tabIndex={-1} ref={heading}>
        {issued.rotated ? 'New token' : 'Token'} for {connector.name}
      </h2>
      <p role="status">
        <strong>Copy it now: you will not see it again.</strong> Only a hash of it is kept.
        {issued.rotated && ' The previous token stopped working.'}
      </p>
      <dl class="copy-list">
        <CopyField label="Connector token" value={connector.token} />
        <CopyField
          label="Push command"
          value={pushCommand(connector.token, connector.scope.websiteId, domain, location.origin)}
        />
      </dl>
      <button type="button" onClick={onDone}>
        I have saved the token
      </button>
    </section>
  );
}

function ConnectorCard({
  connector: c,
  onChanged,
  onIssued,
}: {
  connector: Connector;
  onChanged: () => void;
  onIssued: (token: ConnectorWithToken) => void;
}) {
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const title = useRef<HTMLHeadingElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const route = `/v1/connectors/${encodeURIComponent(c.id)}`;
  // The button pressed goes away: the focus goes to the safe choice, then back to the connector.
  useEffect(() => {
    if (confirming) cancel.current?.focus();
  }, [confirming]);

  async function act(work: () => Promise<void>) {
    setBusy(true);
    setError(undefined);
    try {
      await work();
      onChanged();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }

  const revoked = c.status === 'revoked';
  return (
    <li aria-labelledby={`connector-${c.id}`}>
      <h3 id={`connector-${c.id}`} class="card-title" tabIndex={-1} ref={title}>
        {c.name}
      </h3>
      <dl class="fields compact">
        <div>
          <dt>State</dt>
          <dd>
            <span class={`state state-${c.status}`}>{STATUS_LABELS[c.status]}</span>
            {c.stale && !revoked && <span class="state state-stale"> · Stale: no heartbeat for 15 minutes</span>}
          </dd>
        </div>
        <div>
          <dt>Last heartbeat</dt>
          <dd>
            {timeText(c.lastHeartbeatAt)}
            {c.connectorState && ` (${c.connectorState})`}
          </dd>
        </div>
        <div>
          <dt>May send</dt>
          <dd>{c.scope.sourceTypes.join(', ')}</dd>
        </div>
        <div>
          <dt>Type</dt>
          <dd>
            {c.connectorType}, token version {c.tokenVersion}
          </dd>
        </div>
        <div>
          <dt>Id</dt>
          <dd>
            <code>{c.id}</code>
          </dd>
        </div>
      </dl>
      <ErrorMessage error={error} />
      {!revoked && !confirming && (
        <div class="actions">
          <button
            type="button"
            class="secondary"
            disabled={busy}
            aria-label={`Rotate the token of ${c.name}`}
            onClick={() =>
              void act(async () => onIssued(await call<ConnectorWithToken>('POST', `${route}/rotate`, {})))
            }
          >
            Rotate token
          </button>
          {c.status === 'active' ? (
            <button
              type="button"
              class="secondary"
              disabled={busy}
              aria-label={`Suspend ${c.name}`}
              onClick={() => void act(() => call('POST', `${route}/suspend`, {}))}
            >
              Suspend
            </button>
          ) : (
            <button
              type="button"
              class="secondary"
              disabled={busy}
              aria-label={`Resume ${c.name}`}
              onClick={() => void act(() => call('POST', `${route}/resume`, {}))}
            >
              Resume
            </button>
          )}
          <button
            type="button"
            class="secondary danger"
            disabled={busy}
            aria-label={`Delete ${c.name}`}
            onClick={() => setConfirming(true)}
          >
            Delete
          </button>
        </div>
      )}
      {confirming && (
        <div class="confirm" role="group" aria-label={`Confirm deleting ${c.name}`}>
          <p>Delete {c.name} for good? Its token never works again; this cannot be undone.</p>
          <div class="actions">
            <button
              type="button"
              class="danger"
              disabled={busy}
              onClick={() =>
                void act(() => call('DELETE', route)).then(() => {
                  setConfirming(false);
                  title.current?.focus();
                })
              }
            >
              Yes, delete {c.name}
            </button>
            <button
              type="button"
              class="secondary"
              ref={cancel}
              onClick={() => {
                setConfirming(false);
                title.current?.focus();
              }}
            >
              Cancel
            </button>
          </div>
        </div>
      )}
    </li>
  );
}

function CreateConnectorForm({
  websiteId,
  onCreated,
}: {
  websiteId: string;
  onCreated: (connector: ConnectorWithToken) => void;
}) {
  const [name, setName] = useState('');
  const [type, setType] = useState('files');
  const [types, setTypes] = useState<string[]>(['page', 'post']);
  const [notVerified, setNotVerified] = useState(false);
  const { busy, error, submit } = useSubmit(async () => {
    setNotVerified(false);
    try {
      const created = await call<ConnectorWithToken>(
        'POST',
        `/v1/websites/${encodeURIComponent(websiteId)}/connectors`,
        { name: name.trim() || undefined, connectorType: type.trim(), sourceTypes: types },
      );
      setName('');
      onCreated(created);
    } catch (failure) {
      if (failure instanceof ApiFailure && failure.code === 'website.not_verified') setNotVerified(true);
      throw failure;
    }
  });
  const toggle = (value: string, on: boolean) =>
    setTypes((now) => (on ? [...now, value] : now.filter((t) => t !== value)));

  return (
    <form onSubmit={submit} class="inline" aria-labelledby="create-connector">
      <h2 id="create-connector">Create a connector</h2>
      <label>
        Name <small>(for people; default the type)</small>
        <input name="name" value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      <label>
        Type <small>(what sends the content, such as files or wordpress)</small>
        <input name="type" required value={type} onInput={(e) => setType(e.currentTarget.value)} />
      </label>
      <fieldset>
        <legend>Item types it may send</legend>
        <div class="checks">
          {SOURCE_TYPES.map((value) => (
            <label key={value} class="choice">
              <input
                type="checkbox"
                name="sourceTypes"
                value={value}
                checked={types.includes(value)}
                onChange={(e) => toggle(value, e.currentTarget.checked)}
              />
              {value}
            </label>
          ))}
        </div>
      </fieldset>
      <ErrorMessage error={error} />
      {notVerified && (
        <p>
          <a href={websitePath(websiteId, 'verification')}>Go to the verification tab</a> to prove ownership, then
          create the connector.
        </p>
      )}
      <button type="submit" disabled={busy}>
        Create connector
      </button>
    </form>
  );
}
