import { useState } from 'preact/hooks';
import { ApiFailure, call } from './api.js';
import { NewPasswordFields, Standalone } from './account-parts.js';
import { leaveNotice, mailLinkProblem, newPasswordProblem } from './account-text.js';
import { ErrorMessage } from './error-message.js';
import { BASE, navigate } from './router.js';
import { currentUser, forgetSession } from './session.js';
import { useSubmit } from './use-submit.js';

/**
 * The link of the reset mail: a new password, typed twice. The reset ends every session of the
 * user (this one too, if signed in), so it goes on to the sign-in form, which says why.
 */
export function ResetPasswordPage({ token }: { token?: string }) {
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const [problem, setProblem] = useState<string>();
  const { busy, error, submit } = useSubmit(
    async () => {
      setProblem(undefined);
      const mismatch = newPasswordProblem(password, again);
      if (mismatch) return setProblem(mismatch);
      await call<void>('POST', '/v1/auth/password/reset', { token, password });
      leaveNotice('Your new password is set and every session ended: sign in with it.');
      navigate(`${BASE}/sign-in`);
      if (currentUser()) forgetSession();
    },
    (failure) => {
      const text = failure instanceof ApiFailure ? mailLinkProblem(failure.code, 'reset') : undefined;
      setProblem(text);
      return text !== undefined;
    },
  );

  return (
    <Standalone>
      <h1 tabIndex={-1}>Choose a new password</h1>
      {token ? (
        <form onSubmit={submit}>
          <NewPasswordFields
            password={password}
            onPassword={setPassword}
            again={again}
            onAgain={setAgain}
            hint="At least 10 characters. Every session of the account ends: you sign in again."
            problem={problem}
          />
          <ErrorMessage error={error} />
          <button type="submit" disabled={busy}>
            Set the new password
          </button>
        </form>
      ) : (
        <p class="error" role="alert">
          This address has no token: open the link from the mail exactly as it came.
        </p>
      )}
      <p class="links">
        <a href={`${BASE}/forgot-password`}>Ask for a new reset mail</a>
      </p>
    </Standalone>
  );
}
