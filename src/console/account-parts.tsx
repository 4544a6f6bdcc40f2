import type { ComponentChildren } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { encode } from 'uqr';
import { qrPath } from './account-text.js';
import { currentUser } from './session.js';

/**
 * A page that opens signed in or out (a mailed link may be opened in either state): signed out it
 * is the whole page and brings its own <main>; signed in, the app's layout already has one.
 */
export function Standalone({ children }: { children: ComponentChildren }) {
  if (currentUser()) return <>{children}</>;
  return <main class="page narrow">{children}</main>;
}

/** A success or progress message, read out by screen readers when it appears. */
export function Notice({ children }: { children: ComponentChildren }) {
  return (
    <div class="notice" role="status">
      {children}
    </div>
  );
}

/**
 * Secrets the API shows once (recovery codes): listed, one copy button for all, and the warning
 * that they will not be shown again; `onDone` hides them.
 */
export function ShownOnce({ label, values, onDone }: { label: string; values: string[]; onDone: () => void }) {
  const [copied, setCopied] = useState<'yes' | 'no'>();
  // The button pressed to get them is gone: the keyboard goes on from the codes, and a screen reader reads them.
  const section = useRef<HTMLElement>(null);
  useEffect(() => section.current?.focus(), []);
  async function copy() {
    try {
      await navigator.clipboard.writeText(values.join('\n'));
      setCopied('yes');
    } catch {
      setCopied('no');
    }
  }
  return (
    <section class="shown-once" aria-label={label} tabIndex={-1} ref={section}>
      <p>
        <strong>Save these now: you will not see them again.</strong> Each works once, in place of a code from your
        authenticator app, if you lose it.
      </p>
      <ul class="codes">
        {values.map((value) => (
          <li key={value}>
            <code>{value}</code>
          </li>
        ))}
      </ul>
      <div class="actions">
        <button type="button" class="secondary" onClick={() => void copy()}>
          Copy all
        </button>
        <button type="button" onClick={onDone}>
          I have saved them
        </button>
      </div>
      <p role="status">
        {copied === 'yes' && 'Copied to the clipboard.'}
        {copied === 'no' && 'The browser refused the clipboard: select the codes and copy them by hand.'}
      </p>
    </section>
  );
}

/**
 * A QR code of `text` (an otpauth:// URI) for a phone's camera: dark squares on a white ground
 * whatever the page's colours, with the quiet border scanners need (docs/decisions.md: uqr).
 */
export function QrCode({ text, label }: { text: string; label: string }) {
  const qr = useMemo(() => encode(text, { ecc: 'M', border: 4 }), [text]);
  return (
    <svg class="qr" viewBox={`0 0 ${qr.size} ${qr.size}`} role="img" aria-label={label}>
      <rect width={qr.size} height={qr.size} fill="#fff" />
      <path d={qrPath(qr.data)} fill="#000" />
    </svg>
  );
}

/** A new password typed twice, with what the form found wrong with the pair (they differ). */
export function NewPasswordFields(props: {
  password: string;
  onPassword: (value: string) => void;
  again: string;
  onAgain: (value: string) => void;
  hint: string;
  problem: string | undefined;
}) {
  return (
    <>
      <label>
        New password
        <input
          type="password"
          name="new-password"
          autocomplete="new-password"
          required
          minLength={10}
          value={props.password}
          onInput={(e) => props.onPassword(e.currentTarget.value)}
        />
        <small>{props.hint}</small>
      </label>
      <label>
        New password again
        <input
          type="password"
          name="new-password-again"
          autocomplete="new-password"
          required
          value={props.again}
          onInput={(e) => props.onAgain(e.currentTarget.value)}
        />
      </label>
      {props.problem && (
        <div class="error" role="alert">
          <p>{props.problem}</p>
        </div>
      )}
    </>
  );
}
