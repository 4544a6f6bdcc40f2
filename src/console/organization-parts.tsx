import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Organization } from './api.js';
import { ErrorMessage } from './error-message.js';

/** What the organization pages receive: the id from the address, the organization once the layout read it. */
export interface OrganizationPageProps {
  organizationId: string;
  organization: Organization | undefined;
}

/**
 * A destructive action in two steps on the page itself (no window.confirm, which a screen reader
 * and the keyboard handle poorly): the first button asks, the second does it; the API's refusal shows.
 */
export function ConfirmButton({
  label,
  name = label,
  question,
  confirmLabel,
  action,
}: {
  label: string;
  /** The button's accessible name when the visible label alone is ambiguous in a list ("Remove" of whom). */
  name?: string;
  question: ComponentChildren;
  confirmLabel: string;
  action: () => Promise<void>;
}) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  // The keyboard follows the question: to the confirming button when it appears, back to the first on cancel.
  const ask = useRef<HTMLButtonElement>(null);
  const confirm = useRef<HTMLButtonElement>(null);
  const [asked, setAsked] = useState(false);
  useEffect(() => {
    if (asking) confirm.current?.focus();
    else if (asked) ask.current?.focus();
  }, [asking]);
  async function run() {
    setBusy(true);
    setError(undefined);
    try {
      await action();
      setAsking(false);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }
  if (!asking)
    return (
      <button
        type="button"
        class="secondary danger"
        ref={ask}
        aria-label={name === label ? undefined : name}
        onClick={() => {
          setAsked(true);
          setAsking(true);
        }}
      >
        {label}
      </button>
    );
  return (
    <div class="confirm" role="group" aria-label={name}>
      <p>{question}</p>
      <div class="actions">
        <button type="button" class="danger" ref={confirm} disabled={busy} onClick={() => void run()}>
          {confirmLabel}
        </button>
        <button type="button" class="secondary" onClick={() => setAsking(false)}>
          Cancel
        </button>
      </div>
      <ErrorMessage error={error} />
    </div>
  );
}

/** A secret shown once: selectable text, a copy button, and the warning that it will not be shown again. */
export function SecretOnce({ label, secret, onDone }: { label: string; secret: string; onDone: () => void }) {
  const [copied, setCopied] = useState<string>();
  // The secret appears above the list: the focus goes to it, so a keyboard or screen reader user meets it first.
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [secret]);
  async function copy() {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied('Copied to the clipboard.');
    } catch {
      setCopied('The browser refused the clipboard: select the text and copy it.');
    }
  }
  return (
    <section class="secret" aria-label={label}>
      <h2 tabIndex={-1} ref={heading}>
        {label}
      </h2>
      <p>
        <strong>Copy it now: you will not see it again.</strong> Only its first characters are kept to tell it apart.
      </p>
      <code class="secret-value">{secret}</code>
      <div class="actions">
        <button type="button" onClick={() => void copy()}>
          Copy
        </button>
        <button type="button" class="secondary" onClick={onDone}>
          I have saved it
        </button>
      </div>
      <p role="status">{copied}</p>
    </section>
  );
}
