import { useEffect, useState } from 'preact/hooks';
import { call } from './api.js';
import { Notice } from './account-parts.js';
import { ErrorMessage } from './error-message.js';
import { BASE } from './router.js';
import { useSubmit } from './use-submit.js';

/** POST /v1/auth/register: the same answer whether or not the address already had an account. */
interface Registered {
  userId: string;
  emailVerificationSent: boolean;
}

/**
 * A new account and the organization it owns. The answer does not sign in, and the console does
 * not sign in after it either: a sign-in that fails for an address that had an account would tell
 * anyone which addresses have one, which the API's alike answer hides (docs/decisions.md).
 */
export function SignUpPage(_props: { token?: string }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [orgName, setOrgName] = useState('');
  const [sentTo, setSentTo] = useState<string>();
  const { busy, error, submit } = useSubmit(async () => {
    await call<Registered>('POST', '/v1/auth/register', { email, password, orgName });
    setSentTo(email);
    setPassword('');
  });

  // The form is gone: the focus goes to the new heading, as on a new page.
  useEffect(() => void (sentTo && document.querySelector<HTMLElement>('main h1')?.focus()), [sentTo]);

  if (sentTo)
    return (
      <main class="page narrow">
        <h1 tabIndex={-1}>Check your mail</h1>
        <Notice>
          <p>
            A mail is on its way to <strong>{sentTo}</strong> with a link to confirm the address. The link works once,
            for 24 hours.
          </p>
        </Notice>
        <p>
          Open the link, confirm, then <a href={`${BASE}/sign-in`}>sign in</a> with the password you chose. No mail
          after a few minutes? Look in the spam folder, then ask for a{' '}
          <a href={`${BASE}/forgot-password`}>password reset</a>: its mail confirms the address too.
        </p>
      </main>
    );

  return (
    <main class="page narrow">
      <h1 tabIndex={-1}>Create your account</h1>
      <p>An account and an organization you own, where your websites will live.</p>
      <form onSubmit={submit}>
        <label>
          Email
          <input
            type="email"
            name="email"
            autocomplete="email"
            required
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
        </label>
        <label>
          Password
          <input
            type="password"
            name="new-password"
            autocomplete="new-password"
            required
            minLength={10}
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
          <small>At least 10 characters; a few words make a good one.</small>
        </label>
        <label>
          Organization name
          <input
            name="organization-name"
            autocomplete="organization"
            required
            maxLength={200}
            value={orgName}
            onInput={(e) => setOrgName(e.currentTarget.value)}
          />
          <small>Your company, team or own name; you can rename it later.</small>
        </label>
        <ErrorMessage error={error} />
        <button type="submit" disabled={busy}>
          Create account
        </button>
      </form>
      <p class="links">
        <a href={`${BASE}/sign-in`}>I have an account: sign in</a>
      </p>
    </main>
  );
}
