import { useState } from 'preact/hooks';

/**
 * A button that copies `value` (navigator.clipboard) and says so in a polite live region; when
 * the browser refuses, it says to select the text instead.
 */
export function CopyButton({ value, label }: { value: string; label: string }) {
  const [said, setSaid] = useState('');
  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setSaid('Copied');
    } catch {
      setSaid('Copy refused by the browser: select the text and copy it');
    }
  }
  return (
    <span class="copy">
      <button type="button" class="secondary" aria-label={`Copy ${label}`} onClick={() => void copy()}>
        Copy
      </button>
      <span role="status" class="meta">
        {said}
      </span>
    </span>
  );
}

/** One exact value to place or keep: its label, the text (selectable, wraps), and a copy button. */
export function CopyField({ label, value }: { label: string; value: string }) {
  return (
    <div class="copy-field">
      <dt>{label}</dt>
      <dd>
        <code>{value}</code>
        <CopyButton value={value} label={label} />
      </dd>
    </div>
  );
}
