/**
 * Where fixed-window counters live: control.sqlite by default (rate-limit-sqlite.ts), so limits
 * hold across restarts and processes sharing a data directory; a shared store such as Redis can
 * implement the same two calls when several daemons run.
 */
export interface RateLimitStore {
  /**
   * Adds `by` (default 1) to `bucket`'s counter of the window starting at `windowStart`
   * (kept until at least windowStart + windowMs) and returns the count after.
   */
  increment(bucket: string, windowStart: number, windowMs: number, by?: number): Promise<number>;
  /** `bucket`'s count in the window starting at `windowStart`; 0 when nothing was counted. */
  read(bucket: string, windowStart: number): Promise<number>;
}
