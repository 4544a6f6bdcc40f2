import { useState } from 'preact/hooks';
import { call } from './api.js';
import { Notice, Standalone } from './account-parts.js';
import { ErrorMessage } from './error-message.js';
import { BASE } from './router.js';
import { useSubmit } from './use-submit.js';

/** POST /v1/auth/password/forgot answers 202 alike whether or not the address has an account. */
export function ForgotPasswordPage(_props: { token?: string }) {
  const [email, setEmail] = useState('');
  const [sentTo, setSentTo] = useState<string>();
  const { busy, error, submit } = useSubmit(async () => {
    await call<{ status: 'accepted' }>('POST', '/v1/auth/password/forgot', { email });
    setSentTo(email);
  });

  return (
    <Standalone>
      <h1 tabIndex={-1}>Forgot your password?</h1>
      {sentTo ? (
        <>
          <Notice>
            <p>
              If an account exists for <strong>{sentTo}</strong>, a mail with a link to choose a new password is on its
              way. The link works once, for 1 hour.
            </p>
          </Notice>
          <p>No mail after a few minutes? Look in the spam folder and check the address.</p>
          <button type="button" class="secondary" onClick={() => setSentTo(undefined)}>
            Ask again
          </button>
        </>
      ) : (
        <form onSubmit={submit}>
          <p>Type the address you sign in with: we mail it a link to choose a new password.</p>
          <label>
            Email
            <input
              type="email"
              name="email"
              autocomplete="username"
              required
              value={email}
              onInput={(e) => setEmail(e.currentTarget.value)}
            />
          </label>
          <ErrorMessage error={error} />
          <button type="submit" disabled={busy}>
            Mail me a reset link
          </button>
        </form>
      )}
      <p class="links">
        <a href={`${BASE}/sign-in`}>Back to sign in</a>
      </p>
    </Standalone>
  );
}
