import { useEffect, useState } from 'preact/hooks';
import { call, type User } from './api.js';
import { NewPasswordFields, Notice, QrCode, ShownOnce } from './account-parts.js';
import { groupSecret, leaveNotice, newPasswordProblem, secondFactorOf } from './account-text.js';
import { ErrorMessage } from './error-message.js';
import { BASE, navigate } from './router.js';
import { forgetSession } from './session.js';
import { useSubmit } from './use-submit.js';

/** GET /v1/auth/me. */
interface Profile {
  user: User & { createdAt: string };
  organizations: { id: string; name: string; slug: string; role: string }[];
}

/** GET /v1/auth/2fa. */
interface TwoFactorStatus {
  enabled: boolean;
  pending: boolean;
  recoveryCodesRemaining: number;
}

/** POST /v1/auth/2fa/setup. */
interface TotpSetup {
  secret: string;
  otpauthUri: string;
}

/** The signed-in user: the address and whether it is confirmed, the password, two-factor sign-in. */
export function AccountPage() {
  const [profile, setProfile] = useState<Profile>();
  const [error, setError] = useState<unknown>();
  useEffect(() => void call<Profile>('GET', '/v1/auth/me').then(setProfile, setError), []);

  return (
    <>
      <h1 tabIndex={-1}>Your account</h1>
      <ErrorMessage error={error} />
      {!profile && !error && <p aria-busy="true">Loading…</p>}
      {profile && <EmailSection user={profile.user} />}
      <PasswordSection />
      <TwoFactorSection />
    </>
  );
}

function EmailSection({ user }: { user: User }) {
  return (
    <section aria-labelledby="account-email">
      <h2 id="account-email">Email address</h2>
      <p>
        <strong>{user.email}</strong> ·{' '}
        {user.emailVerified ? (
          <span class="state-verified">Confirmed</span>
        ) : (
          <span class="state-pending">Not confirmed yet</span>
        )}
      </p>
      {!user.emailVerified && (
        <p>
          Open the link in the mail sent when you signed up. Lost it, or has it expired? The API has no way to send it
          again, but a <a href={`${BASE}/forgot-password`}>password reset</a> confirms the address too.
        </p>
      )}
    </section>
  );
}

/** A password change ends every session of the user, this one too: the console signs in again. */
function PasswordSection() {
  const [currentPassword, setCurrentPassword] = useState('');
  const [newPassword, setNewPassword] = useState('');
  const [again, setAgain] = useState('');
  const [problem, setProblem] = useState<string>();
  const { busy, error, submit } = useSubmit(async () => {
    const mismatch = newPasswordProblem(newPassword, again);
    setProblem(mismatch);
    if (mismatch) return;
    await call<void>('POST', '/v1/auth/password/change', { currentPassword, newPassword });
    leaveNotice('Your password is changed and every session ended, here and elsewhere: sign in with the new one.');
    navigate(`${BASE}/sign-in`);
    forgetSession();
  });
  return (
    <form onSubmit={submit} class="inline" aria-labelledby="account-password">
      <h2 id="account-password">Change the password</h2>
      <label>
        Current password
        <input
          type="password"
          name="current-password"
          autocomplete="current-password"
          required
          value={currentPassword}
          onInput={(e) => setCurrentPassword(e.currentTarget.value)}
        />
      </label>
      <NewPasswordFields
        password={newPassword}
        onPassword={setNewPassword}
        again={again}
        onAgain={setAgain}
        hint="At least 10 characters. Every session ends, other browsers and the CLI too: you sign in again."
        problem={problem}
      />
      <ErrorMessage error={error} />
      <button type="submit" disabled={busy}>
        Change the password
      </button>
    </form>
  );
}

/** Two-factor sign-in: its state; setup and activation; new recovery codes and turning it off (each with a code). */
function TwoFactorSection() {
  const [status, setStatus] = useState<TwoFactorStatus>();
  const [error, setError] = useState<unknown>();
  const [setup, setSetup] = useState<TotpSetup>();
  const [codes, setCodes] = useState<string[]>();
  const [done, setDone] = useState<string>();
  const load = () => call<TwoFactorStatus>('GET', '/v1/auth/2fa').then(setStatus, setError);
  useEffect(() => void load(), []);

  const starting = useSubmit(async () => {
    setDone(undefined);
    setSetup(await call<TotpSetup>('POST', '/v1/auth/2fa/setup'));
  });

  return (
    <section class="inline" aria-labelledby="account-2fa">
      <h2 id="account-2fa">Two-factor sign-in</h2>
      <ErrorMessage error={error} />
      {!status && !error && <p aria-busy="true">Loading…</p>}
      {done && <Notice>{done}</Notice>}
      {codes && (
        <ShownOnce
          label="Recovery codes"
          values={codes}
          onDone={() => {
            setCodes(undefined);
            void load();
          }}
        />
      )}
      {status && !status.enabled && !setup && (
        <>
          <p>
            {status.pending
              ? 'Setup was started but not finished: start again to get a new secret for your authenticator app.'
              : 'Off: signing in needs only the password. Turn it on to also ask for a code from an authenticator app.'}
          </p>
          <form onSubmit={starting.submit}>
            <ErrorMessage error={starting.error} />
            <button type="submit" disabled={starting.busy}>
              {status.pending ? 'Start the setup again' : 'Set up two-factor sign-in'}
            </button>
          </form>
        </>
      )}
      {status && !status.enabled && setup && (
        <ActivateForm
          setup={setup}
          onActivated={(recoveryCodes) => {
            setSetup(undefined);
            setCodes(recoveryCodes);
            setDone('Two-factor sign-in is on: signing in asks for a code from now on.');
          }}
        />
      )}
      {status?.enabled && !codes && (
        <>
          <p>
            <span class="state-verified">On</span>: signing in asks for a code from your authenticator app.{' '}
            {status.recoveryCodesRemaining} recovery code{status.recoveryCodesRemaining === 1 ? '' : 's'} left.
          </p>
          <CurrentFactorForm
            title="New recovery codes"
            explain="Replaces every recovery code with 10 new ones; the old ones stop working."
            action="Make new recovery codes"
            onSubmit={async (factor) => {
              const answer = await call<{ recoveryCodes: string[] }>('POST', '/v1/auth/2fa/recovery-codes', factor);
              setDone(undefined);
              setCodes(answer.recoveryCodes);
            }}
          />
          <CurrentFactorForm
            title="Turn two-factor sign-in off"
            explain="Signing in will need only the password; the recovery codes stop working."
            action="Turn it off"
            onSubmit={async (factor) => {
              await call<void>('POST', '/v1/auth/2fa/disable', factor);
              setDone('Two-factor sign-in is off.');
              await load();
            }}
          />
        </>
      )}
    </section>
  );
}

/** The secret to type or open in an authenticator app, then its first code turns two-factor sign-in on. */
function ActivateForm({ setup, onActivated }: { setup: TotpSetup; onActivated: (codes: string[]) => void }) {
  const [code, setCode] = useState('');
  const { busy, error, submit } = useSubmit(async () => {
    const answer = await call<{ recoveryCodes: string[] }>('POST', '/v1/auth/2fa/activate', { code: code.trim() });
    onActivated(answer.recoveryCodes);
  });
  return (
    <form onSubmit={submit}>
      <ol class="steps">
        <li>
          Scan this code with your authenticator app:
          <QrCode text={setup.otpauthUri} label="QR code of the two-factor secret" />
          or type this key into it (time-based, 6 digits):
          <code class="secret">{groupSecret(setup.secret)}</code>
          or, on this device, <a href={setup.otpauthUri}>open it in the authenticator app</a>.
        </li>
        <li>Type the 6-digit code the app shows now.</li>
      </ol>
      <label>
        Code from your authenticator app
        <input
          name="activate-code"
          inputMode="numeric"
          autocomplete="one-time-code"
          pattern="[0-9]{6}"
          required
          value={code}
          onInput={(e) => setCode(e.currentTarget.value)}
        />
      </label>
      <ErrorMessage error={error} />
      <button type="submit" disabled={busy}>
        Turn two-factor sign-in on
      </button>
    </form>
  );
}

/** A form that needs a current code: the authenticator's 6 digits or one recovery code. */
function CurrentFactorForm(props: {
  title: string;
  explain: string;
  action: string;
  onSubmit: (factor: ReturnType<typeof secondFactorOf>) => Promise<void>;
}) {
  const [code, setCode] = useState('');
  const { busy, error, submit } = useSubmit(async () => {
    await props.onSubmit(secondFactorOf(code));
    setCode('');
  });
  return (
    <form onSubmit={submit} class="inline" aria-label={props.title}>
      <h3>{props.title}</h3>
      <p>{props.explain}</p>
      <label>
        Code from your authenticator app, or a recovery code
        <input
          name="current-code"
          autocomplete="one-time-code"
          spellcheck={false}
          required
          value={code}
          onInput={(e) => setCode(e.currentTarget.value)}
        />
      </label>
      <ErrorMessage error={error} />
      <button type="submit" disabled={busy}>
        {props.action}
      </button>
    </form>
  );
}
