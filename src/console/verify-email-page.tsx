import { useState } from 'preact/hooks';
import { ApiFailure, call } from './api.js';
import { Notice, Standalone } from './account-parts.js';
import { mailLinkProblem } from './account-text.js';
import { ErrorMessage } from './error-message.js';
import { BASE } from './router.js';
import { currentUser, refresh } from './session.js';
import { useSubmit } from './use-submit.js';

/** POST /v1/auth/verify-email. */
interface EmailVerified {
  userId: string;
  email: string;
  emailVerified: true;
}

/**
 * The link of the verification mail. It confirms on a button press, not on load: mail scanners
 * open links before the user does, and would spend the single-use token (docs/decisions.md).
 */
export function VerifyEmailPage({ token }: { token?: string }) {
  const [verified, setVerified] = useState<EmailVerified>();
  const [problem, setProblem] = useState<string>();
  const { busy, error, submit } = useSubmit(
    async () => {
      setProblem(undefined);
      const answer = await call<EmailVerified>('POST', '/v1/auth/verify-email', { token });
      // Signed in: renew, so the session's user says verified (and invited organizations are listed).
      if (currentUser()) await refresh();
      setVerified(answer);
    },
    (failure) => {
      const text = failure instanceof ApiFailure ? mailLinkProblem(failure.code, 'verification') : undefined;
      setProblem(text);
      return text !== undefined;
    },
  );
  const next = currentUser() ? (
    <a href={`${BASE}/organizations`}>Go to your organizations</a>
  ) : (
    <a href={`${BASE}/sign-in`}>Sign in</a>
  );

  return (
    <Standalone>
      <h1 tabIndex={-1}>Confirm your email address</h1>
      {!token && (
        <p class="error" role="alert">
          This address has no token: open the link from the mail exactly as it came.
        </p>
      )}
      {verified ? (
        <>
          <Notice>
            <p>
              <strong>{verified.email}</strong> is confirmed. Organizations that invited this address have added you.
            </p>
          </Notice>
          <p>{next}</p>
        </>
      ) : (
        token && (
          <form onSubmit={submit}>
            <p>Press the button to confirm that this address is yours.</p>
            {problem && (
              <div class="error" role="alert">
                <p>{problem}</p>
              </div>
            )}
            <ErrorMessage error={error} />
            <button type="submit" disabled={busy}>
              Confirm my address
            </button>
          </form>
        )
      )}
      {problem && (
        <p class="links">
          {next}
          <a href={`${BASE}/forgot-password`}>Reset the password</a>
        </p>
      )}
    </Standalone>
  );
}
