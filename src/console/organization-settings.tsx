import { useState } from 'preact/hooks';
import { call, type Organization } from './api.js';
import { organizationApi, roleAtLeast, type Transfer, when } from './api-organizations.js';
import { ErrorMessage } from './error-message.js';
import { useSubmit } from './use-submit.js';

/**
 * What an admin (rename) and an owner (transfer to a new owner, cancel it) may change about one
 * organization, folded under its card. The API lists no pending transfer: cancel says so when none is.
 */
export function OrganizationSettings({
  organization,
  onChanged,
}: {
  organization: Organization;
  onChanged: () => void;
}) {
  if (!roleAtLeast(organization.role, 'organization_admin')) return null;
  return (
    <details class="settings">
      <summary>Settings of {organization.name}</summary>
      <RenameForm organization={organization} onChanged={onChanged} />
      {roleAtLeast(organization.role, 'organization_owner') && <TransferForms organization={organization} />}
    </details>
  );
}

function RenameForm({ organization, onChanged }: { organization: Organization; onChanged: () => void }) {
  const [name, setName] = useState(organization.name);
  const [done, setDone] = useState<string>();
  const { busy, error, submit } = useSubmit(async () => {
    setDone(undefined);
    const renamed = await call<Organization>('PATCH', organizationApi(organization.id), { name: name.trim() });
    setDone(`Renamed to ${renamed.name}; the slug stays ${renamed.slug}.`);
    onChanged();
  });
  return (
    <form onSubmit={submit}>
      <h3>Rename</h3>
      <label>
        New name of {organization.name}
        <input required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      <ErrorMessage error={error} />
      {done && <p role="status">{done}</p>}
      <button type="submit" disabled={busy}>
        Rename
      </button>
    </form>
  );
}

function TransferForms({ organization }: { organization: Organization }) {
  const [email, setEmail] = useState('');
  const [done, setDone] = useState<string>();
  const starting = useSubmit(async () => {
    setDone(undefined);
    const { transfer, mailSent } = await call<{ transfer: Transfer; mailSent: boolean }>(
      'POST',
      organizationApi(organization.id, '/transfer'),
      { email: email.trim() },
    );
    setDone(
      mailSent
        ? `A transfer mail went to ${transfer.email}: once they accept it (signed in with that address, until ${when(transfer.expiresAt)}) they become the owner.`
        : `The transfer to ${transfer.email} is started, but its mail could not be sent: cancel it and start again to resend.`,
    );
    setEmail('');
  });
  const cancelling = useSubmit(async () => {
    setDone(undefined);
    const { transfer } = await call<{ transfer: Transfer }>(
      'POST',
      organizationApi(organization.id, '/transfer/cancel'),
      {},
    );
    setDone(`The transfer to ${transfer.email} is cancelled; its mailed link no longer works.`);
  });
  return (
    <>
      <form onSubmit={starting.submit}>
        <h3>Transfer to a new owner</h3>
        <p class="meta">
          The address is mailed a link that works for 7 days; when its owner accepts, they become the organization's
          owner.
        </p>
        <label>
          Email of the new owner of {organization.name}
          <input
            type="email"
            required
            autocomplete="off"
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
        </label>
        <ErrorMessage error={starting.error} />
        <button type="submit" disabled={starting.busy}>
          Start the transfer
        </button>
      </form>
      <form onSubmit={cancelling.submit}>
        <ErrorMessage error={cancelling.error} />
        <button type="submit" class="secondary" disabled={cancelling.busy}>
          Cancel a pending transfer
        </button>
      </form>
      {done && <p role="status">{done}</p>}
    </>
  );
}
