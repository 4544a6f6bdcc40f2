import type { RateLimitStore } from './rate-limit-store.js';

/** A RateLimitStore that counts in memory and writes to a shared one periodically. */
export interface BufferedRateLimitStore extends RateLimitStore {
  /** Adds the counts gathered since the last flush to the shared store (every write starts before this returns). */
  flush(): Promise<void>;
  /** Stops the timer and flushes. */
  close(): Promise<void>;
}

export interface BufferedRateLimitOptions {
  /** How often gathered counts go to the shared store, in ms; default 1000. */
  flushMs?: number;
  /** The clock that dates windows (to forget ended ones); default Date.now. */
  now?: () => number;
  /** Told when a flush fails; its counts stay pending for the next one. */
  onError?: (error: unknown) => void;
}

interface Counter {
  bucket: string;
  windowStart: number;
  windowMs: number;
  /** The shared store's count when last read or written. */
  shared: number;
  /** Counted here, not yet written. */
  pending: number;
  /** Being written by a flush: still counted until the shared store's answer includes it. */
  writing: number;
  loaded: Promise<void>;
}

/**
 * Keeps a write of the shared store off every request: a window's count is read from `shared`
 * once, then counted in memory; once a second the increments go to `shared` (or, when there are
 * none, the count is read again). A process sees its own requests at once and other processes'
 * within a flush, so the limit is exact for one daemon and off by at most a second's worth of
 * another's requests (a crash forgets at most that much). bench/limits.mjs measures the saving.
 */
export function createBufferedRateLimitStore(
  shared: RateLimitStore,
  options: BufferedRateLimitOptions = {},
): BufferedRateLimitStore {
  const now = options.now ?? Date.now;
  const counters = new Map<string, Counter>();

  const counterOf = async (bucket: string, windowStart: number, windowMs: number): Promise<Counter> => {
    const key = `${bucket}\u0000${windowStart}`;
    let counter = counters.get(key);
    if (!counter) {
      const created: Counter = {
        bucket,
        windowStart,
        windowMs,
        shared: 0,
        pending: 0,
        writing: 0,
        loaded: Promise.resolve(),
      };
      created.loaded = shared.read(bucket, windowStart).then(
        (count) => void (created.shared = count),
        (error: unknown) => {
          counters.delete(key); // the next request reads again
          throw error;
        },
      );
      counters.set(key, (counter = created));
    }
    await counter.loaded;
    return counter;
  };

  const flush = async () => {
    const writes: Array<Promise<void>> = [];
    for (const [key, counter] of counters) {
      if (counter.pending === 0) {
        if (counter.writing > 0) continue; // a write under way brings the shared count back
        if (counter.windowStart + counter.windowMs <= now()) counters.delete(key);
        // Nothing to add: learn what other processes added meanwhile.
        else
          writes.push(
            shared.read(counter.bucket, counter.windowStart).then(
              (count) => void (counter.shared = Math.max(counter.shared, count)),
              (error: unknown) => options.onError?.(error),
            ),
          );
        continue;
      }
      const by = counter.pending;
      counter.pending = 0;
      counter.writing += by;
      writes.push(
        shared.increment(counter.bucket, counter.windowStart, counter.windowMs, by).then(
          (total) => {
            counter.writing -= by;
            counter.shared = Math.max(counter.shared, total); // answers may arrive out of order; a count only grows
          },
          (error: unknown) => {
            counter.writing -= by;
            counter.pending += by;
            options.onError?.(error);
          },
        ),
      );
    }
    await Promise.all(writes);
  };
  const timer = setInterval(() => void flush(), options.flushMs ?? 1000);
  timer.unref();

  return {
    async increment(bucket, windowStart, windowMs, by = 1) {
      const counter = await counterOf(bucket, windowStart, windowMs);
      counter.pending += by;
      return counter.shared + counter.writing + counter.pending;
    },
    async read(bucket, windowStart) {
      const counter = counters.get(`${bucket}\u0000${windowStart}`);
      if (!counter) return shared.read(bucket, windowStart);
      await counter.loaded;
      return counter.shared + counter.writing + counter.pending;
    },
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}
