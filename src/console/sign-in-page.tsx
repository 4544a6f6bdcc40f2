import { useState } from 'preact/hooks';
import { ApiFailure } from './api.js';
import { ErrorMessage } from './error-message.js';
import { signIn } from './session.js';
import { useSubmit } from './use-submit.js';

/** Email and password; when the account has two-factor sign-in, the code of the authenticator app too. */
export function SignInPage() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [totp, setTotp] = useState('');
  const [needsCode, setNeedsCode] = useState(false);
  // Without a code the API answers auth.mfa_required for a two-factor account: ask for the code.
  const { busy, error, submit } = useSubmit(
    () => signIn(email, password, needsCode ? totp : undefined),
    (failure) => {
      const wantsCode = failure instanceof ApiFailure && failure.code === 'auth.mfa_required';
      if (wantsCode) setNeedsCode(true);
      return wantsCode;
    },
  );

  return (
    <main class="page narrow">
      <h1 tabIndex={-1}>Sign in to nodectl</h1>
      <form onSubmit={submit}>
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
        <label>
          Password
          <input
            type="password"
            name="password"
            autocomplete="current-password"
            required
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </label>
        {needsCode && (
          <label>
            Code from your authenticator app
            <input
              name="totp"
              inputMode="numeric"
              autocomplete="one-time-code"
              pattern="[0-9]{6}"
              required
              autoFocus
              value={totp}
              onInput={(e) => setTotp(e.currentTarget.value)}
            />
            <small>This account has two-factor sign-in: enter the 6-digit code it shows now.</small>
          </label>
        )}
        <ErrorMessage error={error} />
        <button type="submit" disabled={busy}>
          {needsCode ? 'Verify and sign in' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
