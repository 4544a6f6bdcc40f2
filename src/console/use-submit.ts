import { useState } from 'preact/hooks';

/**
 * A form's submit handler: no page reload, `busy` while the action runs (the button is disabled),
 * and its failure kept for ErrorMessage, unless `handled` takes it (true: nothing to show).
 */
export function useSubmit(action: () => Promise<void>, handled?: (failure: unknown) => boolean) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await action();
    } catch (failure) {
      if (!handled?.(failure)) setError(failure);
    } finally {
      setBusy(false);
    }
  }
  return { busy, error, submit };
}
