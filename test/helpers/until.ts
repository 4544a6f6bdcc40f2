import type { EventEmitter } from 'node:events';

// Taken as this module loads: a test may put the globals on a fake clock (vi.useFakeTimers), and
// the bounds below are real time, hang guards that must fire whatever the test's clock says.
const { setTimeout: realSetTimeout, clearTimeout: realClearTimeout } = globalThis;
const realNow = Date.now;

/**
 * Resolves once `condition()` holds: checked at once, then each time one of `emitters` emits
 * `event` (a chunk of a child's output, a request a server got, a job's outcome), so a test
 * waits exactly as long as the thing it waits for. Rejects after `timeoutMs` naming `what`, for
 * a condition that never comes; the bound is a hang guard, not a measure.
 */
export function until(
  emitters: EventEmitter | EventEmitter[],
  event: string,
  condition: () => boolean,
  what: string,
  timeoutMs = 30_000,
): Promise<void> {
  const sources = Array.isArray(emitters) ? emitters : [emitters];
  return new Promise<void>((resolve, reject) => {
    const done = (error?: Error) => {
      realClearTimeout(timer);
      for (const source of sources) source.off(event, check);
      if (error) reject(error);
      else resolve();
    };
    const check = () => {
      let met: boolean;
      try {
        met = condition();
      } catch (error) {
        return done(error as Error);
      }
      if (met) done();
    };
    const timer = realSetTimeout(
      () => done(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)),
      timeoutMs,
    );
    for (const source of sources) source.on(event, check);
    check();
  });
}

/**
 * The first value `probe()` gives that is not undefined, asked every `intervalMs`: only for what
 * no event announces (a row another process writes into a database). Rejects after `timeoutMs`.
 */
export async function poll<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  what: string,
  options: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const { timeoutMs = 30_000, intervalMs = 20 } = options;
  const deadline = realNow() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (realNow() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => realSetTimeout(resolve, intervalMs));
  }
}
