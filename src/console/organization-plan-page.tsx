import { useEffect, useState } from 'preact/hooks';
import { call, listPath } from './api.js';
import {
  capabilityLabel,
  count,
  type Entitlements,
  organizationApi,
  quotaLabel,
  quotaState,
  quotaWarnings,
  type Usage,
  usageLabel,
} from './api-organizations.js';
import { ErrorMessage } from './error-message.js';
import type { OrganizationPageProps } from './organization-parts.js';

const PLAN_LABELS: Record<string, string> = { free: 'Free', pro: 'Pro', business: 'Business' };
const STATE_WORDS = { ok: '', near: 'Near the limit', full: 'Limit reached' } as const;

/**
 * The plan, its capabilities, every quota with what is used (a native meter: no chart library,
 * nothing the CSP forbids) and the month's usage counters. Billing is not offered: the operator
 * sets the plan at the shell, so the page says that instead of offering a checkout that answers 503.
 */
export function OrganizationPlanPage({ organizationId, organization }: OrganizationPageProps) {
  const [entitlements, setEntitlements] = useState<Entitlements>();
  const [usage, setUsage] = useState<Usage>();
  const [period, setPeriod] = useState('');
  const [error, setError] = useState<unknown>();

  async function loadUsage(month?: string) {
    setError(undefined);
    try {
      const answer = await call<Usage>('GET', listPath(organizationApi(organizationId, '/usage'), { period: month }));
      setUsage(answer);
      setPeriod(answer.period);
    } catch (failure) {
      setError(failure);
    }
  }

  useEffect(() => {
    setEntitlements(undefined);
    setUsage(undefined);
    call<Entitlements>('GET', organizationApi(organizationId, '/entitlements')).then(setEntitlements, setError);
    void loadUsage();
  }, [organizationId]);

  return (
    <>
      <h1 tabIndex={-1}>Plan and usage{organization ? ` of ${organization.name}` : ''}</h1>
      <ErrorMessage error={error} />
      {entitlements === undefined && !error && <p aria-busy="true">Loading…</p>}
      {entitlements && (
        <>
          <p class="plan-name">
            Plan: <strong>{PLAN_LABELS[entitlements.plan] ?? entitlements.plan}</strong>
          </p>
          <div class="note">
            <p>
              Plans are set by the operator of this service: billing is not offered here, so there is nothing to buy in
              the console. To change the plan, ask the operator to run:
            </p>
            <pre>
              <code>
                nodectl admin org set-plan --org {organizationId} --plan {'<free|pro|business>'}
              </code>
            </pre>
          </div>
          {quotaWarnings(entitlements.limits).length > 0 && (
            <div class="note" role="status">
              {quotaWarnings(entitlements.limits).map((warning) => (
                <p key={warning}>{warning}</p>
              ))}
            </div>
          )}
          <h2>Limits</h2>
          <ul class="quotas" aria-label="Limits of the plan">
            {Object.entries(entitlements.limits).map(([name, quota]) => {
              const { label, when } = quotaLabel(name);
              const state = quotaState(quota);
              const meterId = `quota-${name}`;
              return (
                <li key={name} class={`quota quota-${state}`}>
                  <label for={meterId}>
                    {label} <small>{when}</small>
                  </label>
                  <meter
                    id={meterId}
                    min={0}
                    max={quota.limit}
                    value={quota.used}
                    low={quota.limit * 0.8}
                    high={quota.limit * 0.8}
                    optimum={0}
                  />
                  <span class="quota-figures">
                    {count(quota.used)} of {count(quota.limit)}
                    {state !== 'ok' && <strong> · {STATE_WORDS[state]}</strong>}
                  </span>
                </li>
              );
            })}
          </ul>
          <h2>Capabilities</h2>
          <ul>
            {entitlements.capabilities.map((capability) => (
              <li key={capability}>{capabilityLabel(capability)}</li>
            ))}
          </ul>
        </>
      )}
      {usage && (
        <>
          <h2>Usage in {usage.period} (UTC)</h2>
          <form
            class="compact"
            onSubmit={(event) => {
              event.preventDefault();
              void loadUsage(period);
            }}
          >
            <label>
              Month
              <input
                type="month"
                name="period"
                required
                pattern="\d{4}-\d{2}"
                value={period}
                onInput={(e) => setPeriod(e.currentTarget.value)}
              />
            </label>
            <button type="submit" class="secondary">
              Show month
            </button>
          </form>
          <table>
            <caption class="visually-hidden">Usage counters of {usage.period}</caption>
            <thead>
              <tr>
                <th scope="col">Counter</th>
                <th scope="col">Count</th>
              </tr>
            </thead>
            <tbody>
              {Object.entries(usage.usage).map(([metric, value]) => (
                <tr key={metric}>
                  <th scope="row">{usageLabel(metric)}</th>
                  <td>{count(value)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </>
  );
}
