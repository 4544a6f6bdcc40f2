/** A value now (the SQLite queue) or later (the PostgreSQL one). */
export type Awaitable<T> = T | Promise<T>;

/** True when `value` is a promise (a store that answers later), so a synchronous answer is used at once. */
export function isPromise<T>(value: Awaitable<T>): value is Promise<T> {
  return typeof (value as Promise<T> | undefined)?.then === 'function';
}
