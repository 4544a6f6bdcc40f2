import { useEffect, useState } from 'preact/hooks';
import { call } from './api.js';
import { ErrorMessage } from './error-message.js';
import { useSubmit } from './use-submit.js';
import {
  CHALLENGE_METHODS,
  type ChallengeMethod,
  type DomainVerification,
  type VerificationCheck,
  type WebsiteVerification,
} from './website-api.js';
import { CopyField } from './website-copy.js';
import type { WebsitePageProps } from './website-layout.js';
import { failureAdvice, METHOD_LABELS, proofFields, proofWhere, STATE_LABELS, timeText } from './website-text.js';

/**
 * The verification wizard (docs/verification.md): the domain's state, trust and last check; pick a
 * method, place the exact proof the challenge names (copy buttons), check now, and read why a
 * check failed with what to fix. Aliases are verified the same way, one at a time.
 */
export function WebsiteVerificationPage({ website, reload }: WebsitePageProps) {
  const [record, setRecord] = useState<WebsiteVerification>();
  const [error, setError] = useState<unknown>();
  const [domain, setDomain] = useState(website.domain);
  const path = `/v1/websites/${encodeURIComponent(website.id)}/verification`;

  async function load() {
    try {
      setRecord(await call<WebsiteVerification>('GET', path));
      setError(undefined);
    } catch (failure) {
      setError(failure);
    }
  }
  useEffect(() => void load(), [website.id]);

  const domains = record ? [record, ...record.aliases] : [];
  const current = domains.find((d) => d.domain === domain) ?? record;

  return (
    <>
      <h1 tabIndex={-1}>Verify ownership</h1>
      <p>
        Prove that you control {website.domain}: place a proof where the method says, then check. Until then the
        website's trust tier is unverified and connectors cannot be created.
      </p>
      <ErrorMessage error={error} />
      {!record && !error && <p aria-busy="true">Loading…</p>}
      {record && record.aliases.length > 0 && (
        <label class="switcher">
          Domain
          <select value={current?.domain} onChange={(e) => setDomain(e.currentTarget.value)}>
            {domains.map((d) => (
              <option key={d.domain} value={d.domain}>
                {d.domain}
                {d.alias ? ' (alias)' : ''}
              </option>
            ))}
          </select>
        </label>
      )}
      {current && (
        <DomainWizard
          key={current.domain}
          websiteId={website.id}
          verification={current}
          onChange={async () => {
            await load();
            await reload();
          }}
        />
      )}
      {record && record.history.length > 0 && <History record={record} />}
    </>
  );
}

function Status({ verification: v }: { verification: DomainVerification }) {
  return (
    <dl class="fields">
      <div>
        <dt>State</dt>
        <dd>
          <span class={`state state-${v.state}`}>{STATE_LABELS[v.state] ?? v.state}</span>
          {v.method && ` by ${v.method}`}
        </dd>
      </div>
      <div>
        <dt>Trust tier</dt>
        <dd>
          {v.trustTier} (score {v.trustScore})
        </dd>
      </div>
      <div>
        <dt>Last check</dt>
        <dd>{timeText(v.lastCheckedAt)}</dd>
      </div>
      {v.verifiedAt && (
        <div>
          <dt>Verified</dt>
          <dd>{timeText(v.verifiedAt)}</dd>
        </div>
      )}
      {v.graceUntil && (
        <div>
          <dt>Grace ends</dt>
          <dd>{timeText(v.graceUntil)}: a passing check before then keeps the verification</dd>
        </div>
      )}
      {v.challengeExpiresAt && (
        <div>
          <dt>Challenge open until</dt>
          <dd>{timeText(v.challengeExpiresAt)}</dd>
        </div>
      )}
      {v.failureCount > 0 && (
        <div>
          <dt>Failed checks</dt>
          <dd>{v.failureCount} since the last that passed</dd>
        </div>
      )}
    </dl>
  );
}

function DomainWizard({
  websiteId,
  verification,
  onChange,
}: {
  websiteId: string;
  verification: DomainVerification;
  onChange: () => Promise<void>;
}) {
  const [method, setMethod] = useState<ChallengeMethod>(verification.challenge?.method ?? 'dns_txt');
  const [outcome, setOutcome] = useState<VerificationCheck['check']>();
  const path = `/v1/websites/${encodeURIComponent(websiteId)}/verification`;
  const body = verification.alias ? { domain: verification.domain } : {};

  const challenging = useSubmit(async () => {
    setOutcome(undefined);
    await call<DomainVerification>('POST', `${path}/challenge`, { method, ...body });
    await onChange();
  });
  const checking = useSubmit(async () => {
    setOutcome(undefined);
    const answer = await call<VerificationCheck>('POST', `${path}/check`, body);
    setOutcome(answer.check);
    await onChange();
  });

  const challenge = verification.challenge;
  const reason = outcome && !outcome.passed ? outcome.evidence : verification.lastFailureReason;

  return (
    <>
      <section class="inline" aria-labelledby="state">
        <h2 id="state">{verification.domain}</h2>
        <Status verification={verification} />
        {reason && (
          <div class="error" role={outcome ? 'alert' : undefined}>
            <p>
              <strong>Why the last check failed:</strong> {reason}
            </p>
            <p>
              <strong>What to fix:</strong> {failureAdvice(outcome?.method ?? challenge?.method ?? null, reason)}
            </p>
          </div>
        )}
        {outcome?.passed && (
          <p role="status" class="ok">
            The check passed: {verification.domain} is {STATE_LABELS[verification.state].toLowerCase()}.
          </p>
        )}
      </section>

      <form onSubmit={challenging.submit} class="inline">
        <h2>1. Pick a method</h2>
        <fieldset>
          <legend>How you will prove ownership</legend>
          {CHALLENGE_METHODS.map((name) => (
            <label key={name} class="choice">
              <input
                type="radio"
                name="method"
                value={name}
                checked={method === name}
                onChange={() => setMethod(name)}
              />
              {METHOD_LABELS[name]}
            </label>
          ))}
        </fieldset>
        <ErrorMessage error={challenging.error} />
        <button type="submit" disabled={challenging.busy}>
          {challenge ? 'Show what to place for this method' : 'Show what to place'}
        </button>
      </form>

      {challenge && (
        <section class="inline" aria-labelledby="place">
          <h2 id="place">2. Place this proof</h2>
          <p>
            <strong>{METHOD_LABELS[challenge.method]}:</strong> {proofWhere(challenge.instructions)}
          </p>
          <dl class="copy-list">
            {proofFields(challenge.instructions).map((field) => (
              <CopyField key={field.label} label={field.label} value={field.value} />
            ))}
          </dl>
          <p class="meta">The token stays the same whatever method you pick, so a proof already placed stays valid.</p>
        </section>
      )}

      {challenge && (
        <form onSubmit={checking.submit} class="inline">
          <h2>3. Check</h2>
          <p class="meta">The daemon reads the proof now. DNS changes can take a while to appear.</p>
          <ErrorMessage error={checking.error} />
          <button type="submit" disabled={checking.busy}>
            {checking.busy ? 'Checking…' : 'Check now'}
          </button>
        </form>
      )}
    </>
  );
}

function History({ record }: { record: WebsiteVerification }) {
  return (
    <section class="inline" aria-labelledby="history">
      <h2 id="history">Latest steps</h2>
      <ol class="steps">
        {record.history.map((step, index) => (
          <li key={`${step.at}-${index}`}>
            <span class="meta">{timeText(step.at)}</span> {step.domain}: {step.event} {step.result}
            {step.method && ` (${step.method})`}, {step.fromState} → {step.toState}
            {step.evidence && <span class="meta evidence">{step.evidence}</span>}
          </li>
        ))}
      </ol>
    </section>
  );
}
