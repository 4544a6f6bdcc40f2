import { useState } from 'preact/hooks';
import { call, type Page } from './api.js';

/**
 * One cursor-paged list: `load()` reads the first page and replaces what is shown, `load(cursor)`
 * appends the next page. `pathOf` turns a cursor into the GET address; it is read at each call,
 * so it may close over the caller's current props and state.
 */
export function usePagedList<T>(pathOf: (after?: string) => string) {
  const [items, setItems] = useState<T[]>();
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<unknown>();

  async function load(after?: string) {
    setError(undefined);
    // A first page starts the list over: the last list's cursor must not offer "Show more" meanwhile.
    if (!after) setCursor(null);
    try {
      const page = await call<Page<T>>('GET', pathOf(after));
      setItems((shown) => (after && shown ? [...shown, ...page.items] : page.items));
      setCursor(page.next_cursor);
    } catch (failure) {
      setError(failure);
    }
  }

  /** Forgets the items and the cursor, for a list that may not be read again at once. */
  function reset() {
    setItems(undefined);
    setCursor(null);
  }

  return { items, setItems, cursor, error, setError, load, reset };
}
