import { useEffect, useState } from 'preact/hooks';
import { call, listPath, type Page } from './api.js';
import { ErrorMessage } from './error-message.js';
import { useSubmit } from './use-submit.js';
import type { WebsitePageProps } from './website-layout.js';
import { usePagedList } from './use-paged-list.js';

/** src/control/webhooks (docs/webhooks.md): the fields this page reads. */
interface Subscription {
  id: string;
  url: string;
  events: string[];
  description: string;
  enabled: boolean;
  disabledReason: 'manual' | 'gone' | 'failing' | null;
  secretVersion: number;
  previousSecretExpiresAt: string | null;
  failingSince: string | null;
  createdAt: string;
}

interface Delivery {
  id: string;
  eventId: string;
  eventType: string;
  state: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  nextAttemptAt: string | null;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: string;
}

interface Attempt {
  id: string;
  trigger: 'schedule' | 'manual';
  startedAt: string;
  durationMs: number;
  status: number | null;
  error: string | null;
  responseExcerpt: string;
}

interface TestAnswer {
  delivered: boolean;
  status: number | null;
  durationMs: number;
  error: string | null;
  responseExcerpt: string;
}

/** docs/webhooks.md "Event catalogue". */
const EVENTS: Array<[string, string]> = [
  ['ingest.completed', 'An ingest job finished'],
  ['node.published', 'A version was published'],
  ['node.taken_down', 'The node was taken down'],
  ['verification.changed', 'The verification state changed'],
  ['connector.stale', 'A connector stopped sending heartbeats'],
  ['website.transferred', 'The website moved to another organization'],
];

const DISABLED: Record<string, string> = {
  manual: 'Disabled by hand',
  gone: 'Disabled: the receiver answered 410 Gone',
  failing: 'Disabled: every delivery failed for 3 days',
};

const when = (iso: string) => new Date(iso).toLocaleString();

/** Webhook subscriptions: create (secret shown once), edit, delete, rotate, test ping, deliveries with attempts, resend. */
export function WebsiteWebhooksPage({ website }: WebsitePageProps) {
  const base = `/v1/websites/${encodeURIComponent(website.id)}/webhooks`;
  const {
    items: subscriptions,
    setItems: setSubscriptions,
    cursor,
    error,
    load,
  } = usePagedList<Subscription>((after) => listPath(base, { limit: 50, cursor: after }));
  const [secret, setSecret] = useState<{ label: string; secret: string }>();
  useEffect(() => {
    setSubscriptions(undefined);
    void load();
  }, [website.id]);

  return (
    <>
      <h1 tabIndex={-1}>Webhooks</h1>
      {secret && <SecretOnce {...secret} onDone={() => setSecret(undefined)} />}
      <ErrorMessage error={error} />
      {subscriptions === undefined && !error && <p aria-busy="true">Loading…</p>}
      {subscriptions && subscriptions.length === 0 && (
        <p class="empty">
          No webhooks yet. Add the URL of a receiver below to be told when an ingest finishes or a version is published.
        </p>
      )}
      {subscriptions?.map((subscription) => (
        <SubscriptionCard
          key={subscription.id}
          base={`${base}/${encodeURIComponent(subscription.id)}`}
          subscription={subscription}
          onChanged={() => void load()}
          onSecret={(value) => setSecret({ label: `The new signing secret of ${subscription.url}`, secret: value })}
        />
      ))}
      {cursor && (
        <button type="button" class="secondary" onClick={() => void load(cursor)}>
          Show more webhooks
        </button>
      )}
      <SubscriptionForm
        title="Add a webhook"
        submitLabel="Add webhook"
        onSave={async (body) => {
          const created = await call<Subscription & { secret: string }>('POST', base, body);
          setSecret({ label: `The signing secret of ${created.url}`, secret: created.secret });
          await load();
        }}
      />
    </>
  );
}

/** A secret shown once, with a copy button and the warning that it will not be shown again. */
function SecretOnce({ label, secret, onDone }: { label: string; secret: string; onDone: () => void }) {
  const [copied, setCopied] = useState('');
  return (
    <section class="secret" aria-labelledby="secret-heading">
      <h2 id="secret-heading">{label}</h2>
      <p>
        <strong>Copy it now: you will not see it again.</strong> Your receiver verifies each delivery's signature with
        it (docs/webhooks.md).
      </p>
      <code class="secret-value">{secret}</code>
      <div class="actions">
        <button
          type="button"
          onClick={() =>
            navigator.clipboard
              .writeText(secret)
              .then(() => setCopied('Copied to the clipboard.'))
              .catch(() => setCopied('The browser refused to copy: select the secret and copy it by hand.'))
          }
        >
          Copy secret
        </button>
        <button type="button" class="secondary" onClick={onDone}>
          I have stored it
        </button>
      </div>
      <p role="status">{copied}</p>
    </section>
  );
}

interface SubscriptionBody {
  url: string;
  events: string[];
  description: string;
  enabled?: boolean;
}

function SubscriptionForm({
  title,
  submitLabel,
  initial,
  onSave,
  onCancel,
}: {
  title: string;
  submitLabel: string;
  initial?: Subscription;
  onSave: (body: SubscriptionBody) => Promise<void>;
  onCancel?: () => void;
}) {
  const [url, setUrl] = useState(initial?.url ?? '');
  const [events, setEvents] = useState<string[]>(initial?.events ?? ['ingest.completed', 'node.published']);
  const [description, setDescription] = useState(initial?.description ?? '');
  const [enabled, setEnabled] = useState(initial?.enabled ?? true);
  const { busy, error, submit } = useSubmit(async () => {
    await onSave({ url: url.trim(), events, description: description.trim(), ...(initial ? { enabled } : {}) });
    if (!initial) {
      setUrl('');
      setDescription('');
    }
  });
  const toggle = (event: string, on: boolean) =>
    setEvents((list) => (on ? [...list.filter((e) => e !== event), event] : list.filter((e) => e !== event)));
  return (
    <form onSubmit={submit} class="inline">
      <h2>{title}</h2>
      <label>
        Receiver URL
        <input
          type="url"
          required
          value={url}
          placeholder="https://example.com/hooks/nodectl"
          onInput={(e) => setUrl(e.currentTarget.value)}
        />
      </label>
      <fieldset>
        <legend>Events</legend>
        {EVENTS.map(([event, label]) => (
          <label key={event} class="check">
            <input
              type="checkbox"
              checked={events.includes(event)}
              onChange={(e) => toggle(event, e.currentTarget.checked)}
            />
            {label} <span class="meta">{event}</span>
          </label>
        ))}
      </fieldset>
      <label>
        Description <small>optional, for people</small>
        <input value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
      </label>
      {initial && (
        <label class="check">
          <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.currentTarget.checked)} />
          Enabled
        </label>
      )}
      <ErrorMessage error={error} />
      <div class="actions">
        <button type="submit" disabled={busy}>
          {submitLabel}
        </button>
        {onCancel && (
          <button type="button" class="secondary" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}

function SubscriptionCard({
  base,
  subscription,
  onChanged,
  onSecret,
}: {
  base: string;
  subscription: Subscription;
  onChanged: () => void;
  onSecret: (secret: string) => void;
}) {
  const [editing, setEditing] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [test, setTest] = useState<TestAnswer>();
  const [showDeliveries, setShowDeliveries] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();

  const act = async (action: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <article class="card" aria-label={`Webhook ${subscription.url}`}>
      <h2 class="card-title">{subscription.url}</h2>
      <p class="meta">
        {subscription.enabled ? 'Enabled' : (DISABLED[subscription.disabledReason ?? 'manual'] ?? 'Disabled')} ·{' '}
        {subscription.events.join(', ')} · secret version {subscription.secretVersion}
        {subscription.description && ` · ${subscription.description}`}
      </p>
      {subscription.failingSince && (
        <p class="error">Deliveries have failed since {when(subscription.failingSince)}: read the attempts below.</p>
      )}
      {subscription.previousSecretExpiresAt && (
        <p class="meta">The previous secret also signs until {when(subscription.previousSecretExpiresAt)}.</p>
      )}
      <div class="actions">
        <button
          type="button"
          disabled={busy}
          onClick={() =>
            void act(async () => {
              setTest(undefined);
              setTest(await call<TestAnswer>('POST', `${base}/test`, {}));
            })
          }
        >
          Send a test ping
        </button>
        <button
          type="button"
          class="secondary"
          aria-expanded={showDeliveries}
          onClick={() => setShowDeliveries(!showDeliveries)}
        >
          {showDeliveries ? 'Hide deliveries' : 'Show deliveries'}
        </button>
        <button type="button" class="secondary" onClick={() => setEditing(!editing)}>
          Edit
        </button>
        <button
          type="button"
          class="secondary"
          disabled={busy}
          onClick={() =>
            void act(async () => {
              const rotated = await call<{ secret: string }>('POST', `${base}/rotate`, {});
              onSecret(rotated.secret);
              onChanged();
            })
          }
        >
          Rotate secret
        </button>
        <button type="button" class="secondary danger" onClick={() => setConfirmDelete(true)}>
          Delete
        </button>
      </div>
      {test && (
        <p role="status" class={test.delivered ? 'ok' : 'error'}>
          Test ping {test.delivered ? 'delivered' : 'not delivered'}:{' '}
          {test.status === null ? 'no answer' : `HTTP ${test.status}`} in {test.durationMs} ms
          {test.error ? ` (${test.error})` : ''}.
        </p>
      )}
      <ErrorMessage error={error} />
      {confirmDelete && (
        <div class="confirm" role="group" aria-label="Confirm the deletion">
          <p>Delete this webhook with all its deliveries? Its receiver gets nothing more.</p>
          <div class="actions">
            <button
              type="button"
              class="danger"
              disabled={busy}
              onClick={() =>
                void act(async () => {
                  await call('DELETE', base);
                  onChanged();
                })
              }
            >
              Delete webhook
            </button>
            <button type="button" class="secondary" onClick={() => setConfirmDelete(false)}>
              Cancel
            </button>
          </div>
        </div>
      )}
      {editing && (
        <SubscriptionForm
          title="Edit the webhook"
          submitLabel="Save changes"
          initial={subscription}
          onCancel={() => setEditing(false)}
          onSave={async (body) => {
            await call('PATCH', base, body);
            setEditing(false);
            onChanged();
          }}
        />
      )}
      {showDeliveries && <Deliveries base={base} />}
    </article>
  );
}

function Deliveries({ base }: { base: string }) {
  const {
    items: deliveries,
    cursor,
    error,
    load,
  } = usePagedList<Delivery>((after) => listPath(`${base}/deliveries`, { limit: 20, cursor: after }));
  useEffect(() => {
    void load();
  }, [base]);
  return (
    <section aria-label="Deliveries">
      <h3>Deliveries, newest first</h3>
      <button type="button" class="secondary" onClick={() => void load()}>
        Refresh deliveries
      </button>
      <ErrorMessage error={error} />
      {deliveries === undefined && !error && <p aria-busy="true">Loading…</p>}
      {deliveries && deliveries.length === 0 && (
        <p class="empty">No delivery yet: one is made when a subscribed event happens (a test ping is not stored).</p>
      )}
      {deliveries && deliveries.length > 0 && (
        <ul class="cards">
          {deliveries.map((delivery) => (
            <DeliveryItem
              key={delivery.id}
              base={`${base}/deliveries/${encodeURIComponent(delivery.id)}`}
              delivery={delivery}
              onResent={() => void load()}
            />
          ))}
        </ul>
      )}
      {cursor && (
        <button type="button" class="secondary" onClick={() => void load(cursor)}>
          Show more deliveries
        </button>
      )}
    </section>
  );
}

function DeliveryItem({ base, delivery, onResent }: { base: string; delivery: Delivery; onResent: () => void }) {
  const [attempts, setAttempts] = useState<Attempt[]>();
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<unknown>();
  const [notice, setNotice] = useState('');
  const loadAttempts = () =>
    call<Page<Attempt>>('GET', listPath(`${base}/attempts`, { limit: 50 })).then(
      (page) => setAttempts(page.items),
      setError,
    );
  useEffect(() => {
    if (open) void loadAttempts();
  }, [open, delivery.attempts, delivery.state]);
  return (
    <li aria-label={`Delivery of ${delivery.eventType}: ${delivery.state}`}>
      <strong>
        {delivery.eventType} <span class={`state state-delivery-${delivery.state}`}>{delivery.state}</span>
      </strong>
      <span class="meta">
        {when(delivery.createdAt)} · {delivery.attempts} attempt(s) · last answer{' '}
        {delivery.lastStatus === null ? 'none' : `HTTP ${delivery.lastStatus}`}
        {delivery.nextAttemptAt && ` · next try ${when(delivery.nextAttemptAt)}`}
      </span>
      {delivery.lastError && <span class="error">{delivery.lastError}</span>}
      <div class="actions">
        <button type="button" class="secondary" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? 'Hide attempts' : 'Show attempts'}
        </button>
        <button
          type="button"
          class="secondary"
          onClick={() =>
            call('POST', `${base}/resend`, {}).then(() => {
              setNotice('Resent: a new attempt is queued now.');
              onResent();
            }, setError)
          }
        >
          Resend
        </button>
      </div>
      <p role="status" class="meta">
        {notice}
      </p>
      <ErrorMessage error={error} />
      {open && attempts && (
        <table>
          <caption class="visually-hidden">Attempts of this delivery, in order</caption>
          <thead>
            <tr>
              <th scope="col">Started</th>
              <th scope="col">Trigger</th>
              <th scope="col">Response</th>
              <th scope="col">Error</th>
            </tr>
          </thead>
          <tbody>
            {attempts.map((attempt) => (
              <tr key={attempt.id}>
                <td>{when(attempt.startedAt)}</td>
                <td>{attempt.trigger === 'manual' ? 'Resend' : 'Scheduled'}</td>
                <td>
                  {attempt.status === null ? 'No answer' : `HTTP ${attempt.status}`} in {attempt.durationMs} ms
                  {attempt.responseExcerpt && <code class="excerpt">{attempt.responseExcerpt}</code>}
                </td>
                <td>{attempt.error ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </li>
  );
}
