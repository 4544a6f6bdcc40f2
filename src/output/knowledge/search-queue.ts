import { AppError } from '../../platform/errors/index.js';

/** Runs knowledge searches one at a time, each in a turn of the event loop of its own. */
export interface SearchQueue {
  /**
   * Runs `work` once the searches queued before it have run, after giving the event loop a turn,
   * for `caller` (an API key, a user, an address). Throws 429 quota.rate_limited when the caller
   * already has `perCaller` searches waiting or running.
   */
  run<T>(caller: string, work: () => T): Promise<T>;
  /** Searches waiting, for all callers. */
  readonly size: number;
}

interface Task {
  caller: string;
  work: () => unknown;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/**
 * A search is synchronous SQLite (FTS5) work on the event loop; 200 at once made every other
 * request, /healthz included, wait for all of them. Queued here, one search runs per turn of the
 * loop (setImmediate), so requests that arrived meanwhile are answered between two searches, and
 * a caller may hold at most `perCaller` places, so one caller cannot fill the queue
 * (docs/decisions.md: why not a worker thread).
 */
export function createSearchQueue(options: { perCaller: number }): SearchQueue {
  const tasks: Task[] = [];
  const held = new Map<string, number>();
  let scheduled = false;

  const release = (caller: string) => {
    const count = (held.get(caller) ?? 1) - 1;
    if (count === 0) held.delete(caller);
    else held.set(caller, count);
  };
  const schedule = () => {
    if (scheduled || tasks.length === 0) return;
    scheduled = true;
    setImmediate(runOne);
  };
  function runOne(): void {
    scheduled = false;
    const task = tasks.shift();
    if (!task) return;
    try {
      task.resolve(task.work());
    } catch (error) {
      task.reject(error);
    } finally {
      release(task.caller);
      schedule();
    }
  }

  return {
    run<T>(caller: string, work: () => T): Promise<T> {
      const count = held.get(caller) ?? 0;
      if (count >= options.perCaller)
        return Promise.reject(
          new AppError(
            'quota.rate_limited',
            `Too many searches at once: at most ${options.perCaller} per caller wait or run; send the next when one has answered.`,
            { retryAfterSeconds: 1, details: { limit: options.perCaller } },
          ),
        );
      held.set(caller, count + 1);
      return new Promise<T>((resolve, reject) => {
        tasks.push({ caller, work, resolve: resolve as (value: unknown) => void, reject });
        schedule();
      });
    },
    get size() {
      return tasks.length;
    },
  };
}
