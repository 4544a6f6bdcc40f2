import { useEffect, useState } from 'preact/hooks';
import { ApiFailure, call, type Organization } from './api.js';
import { Notice } from './account-parts.js';
import { mailLinkProblem } from './account-text.js';
import { ErrorMessage } from './error-message.js';
import { BASE, websitesPath } from './router.js';
import { currentUser } from './session.js';
import { useSubmit } from './use-submit.js';

/** POST /v1/organizations/transfers/:token/accept (202). */
interface AcceptedTransfer {
  job_id: string;
  transfer: { id: string; organizationId: string; email: string; state: string };
}

/**
 * The transfer mail's link: accepting is a button (a mail scanner opening the link must not take an
 * organization over). The org.transfer.execute job then makes the caller its owner; the page checks
 * the organization until it says so.
 */
export function TransferPage({ token }: { token?: string }) {
  const [accepted, setAccepted] = useState<AcceptedTransfer>();
  const [problem, setProblem] = useState<string>();
  const { busy, error, submit } = useSubmit(
    async () => {
      setProblem(undefined);
      setAccepted(
        await call<AcceptedTransfer>('POST', `/v1/organizations/transfers/${encodeURIComponent(token!)}/accept`),
      );
    },
    (failure) => {
      if (!(failure instanceof ApiFailure)) return false;
      const text =
        failure.code === 'auth.forbidden'
          ? `This transfer was mailed to another address than ${currentUser()?.email ?? 'yours'}: sign out, then sign in with the address the mail came to.`
          : mailLinkProblem(failure.code, 'transfer');
      setProblem(text);
      return text !== undefined;
    },
  );

  return (
    <>
      <h1 tabIndex={-1}>Take over an organization</h1>
      {!token && (
        <p class="error" role="alert">
          This address has no token: open the link from the mail exactly as it came.
        </p>
      )}
      {accepted ? (
        <OwnershipMoves organizationId={accepted.transfer.organizationId} />
      ) : (
        token && (
          <form onSubmit={submit}>
            <p>
              Someone wants to make you the owner of their organization, with its websites. You become its organization
              owner; the previous owner stays as an organization admin.
            </p>
            {problem && (
              <div class="error" role="alert">
                <p>{problem}</p>
              </div>
            )}
            <ErrorMessage error={error} />
            <button type="submit" disabled={busy}>
              Accept the transfer
            </button>
          </form>
        )
      )}
      <p class="links">
        <a href={`${BASE}/organizations`}>Your organizations</a>
      </p>
    </>
  );
}

/** Asks for the organization this many times, a second apart, before saying to look later. */
const CHECKS = 60;

/** After accepting: the organization as the caller sees it, asked again every second until they own it. */
function OwnershipMoves({ organizationId }: { organizationId: string }) {
  const [organization, setOrganization] = useState<Organization>();
  const [error, setError] = useState<unknown>();
  const [checks, setChecks] = useState(0);
  const owner = organization?.role === 'organization_owner';
  useEffect(() => {
    if (owner || error || checks >= CHECKS) return;
    const check = () =>
      call<Organization>('GET', `/v1/organizations/${encodeURIComponent(organizationId)}`)
        .then(setOrganization, (failure: unknown) => {
          // Until the job has run the caller may not be a member yet: ask again.
          if (!(failure instanceof ApiFailure && (failure.status === 403 || failure.status === 404))) setError(failure);
        })
        .finally(() => setChecks((n) => n + 1));
    const timer = setTimeout(() => void check(), checks === 0 ? 0 : 1000);
    return () => clearTimeout(timer);
  }, [checks]);
  return (
    <>
      <Notice>
        {owner ? (
          <p>
            You own <strong>{organization!.name}</strong> now.
          </p>
        ) : checks >= CHECKS ? (
          <p>Accepted, but the move has not finished yet: look at your organizations again in a while.</p>
        ) : (
          <p>Accepted: the organization is moving to you, which takes a moment.</p>
        )}
      </Notice>
      <ErrorMessage error={error} />
      {owner && (
        <p>
          <a href={websitesPath(organizationId)}>Open {organization!.name}</a>
        </p>
      )}
    </>
  );
}
