import { useState } from 'preact/hooks';
import { ApiFailure } from './api.js';
import { Notice } from './account-parts.js';
import { takeNotice } from './account-text.js';
import { ErrorMessage } from './error-message.js';
import { BASE } from './router.js';
import { signIn } from './session.js';
import { useSubmit } from './use-submit.js';

/**
 * Email and password; when the account has two-factor sign-in, the code of the authenticator app
 * or a recovery code too. It never changes the address: signed in, the app shows the page the
 * address names (a mailed invitation or transfer link opened while signed out comes back to it).
 * `intro` says why a page asks to sign in first.
 */
export function SignInPage({ intro }: { intro?: string } = {}) {
  const [notice] = useState(takeNotice);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [needsCode, setNeedsCode] = useState(false);
  const [withRecoveryCode, setWithRecoveryCode] = useState(false);
  // Without a code the API answers auth.mfa_required for a two-factor account: ask for the code.
  const { busy, error, submit } = useSubmit(
    () =>
      signIn(
        email,
        password,
        !needsCode ? undefined : withRecoveryCode ? { recoveryCode: code.trim() } : { totp: code.trim() },
      ),
    (failure) => {
      const wantsCode = failure instanceof ApiFailure && failure.code === 'auth.mfa_required';
      if (wantsCode) setNeedsCode(true);
      return wantsCode;
    },
  );

  return (
    <main class="page narrow">
      <h1 tabIndex={-1}>Sign in to nodectl</h1>
      {notice && <Notice>{notice}</Notice>}
      {intro && <p>{intro}</p>}
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
        {needsCode && !withRecoveryCode && (
          <label>
            Code from your authenticator app
            <input
              name="totp"
              inputMode="numeric"
              autocomplete="one-time-code"
              pattern="[0-9]{6}"
              required
              autoFocus
              value={code}
              onInput={(e) => setCode(e.currentTarget.value)}
            />
            <small>This account has two-factor sign-in: enter the 6-digit code it shows now.</small>
          </label>
        )}
        {needsCode && withRecoveryCode && (
          <label>
            Recovery code
            <input
              name="recovery-code"
              autocomplete="off"
              spellcheck={false}
              required
              autoFocus
              value={code}
              onInput={(e) => setCode(e.currentTarget.value)}
            />
            <small>One of the codes you saved when you turned two-factor sign-in on; each works once.</small>
          </label>
        )}
        {needsCode && (
          <button
            type="button"
            class="secondary"
            onClick={() => {
              setWithRecoveryCode(!withRecoveryCode);
              setCode('');
            }}
          >
            {withRecoveryCode ? 'Use the authenticator app instead' : 'Use a recovery code instead'}
          </button>
        )}
        <ErrorMessage error={error} />
        <button type="submit" disabled={busy}>
          {needsCode ? 'Verify and sign in' : 'Sign in'}
        </button>
      </form>
      <p class="links">
        <a href={`${BASE}/sign-up`}>Create an account</a>
        <a href={`${BASE}/forgot-password`}>Forgot your password?</a>
      </p>
    </main>
  );
}
