import { writeWithoutWaiting, type Db } from './sqlite.js';
import { addUsage, monthOf, type UsageMetric } from './usage-counters.js';

/** Usage counts kept in memory and written to usage_counters in one transaction per flush. */
export interface UsageBuffer {
  /** Counts `amount` (default 1) of `metric` for the organization, in the month of now. */
  count(organizationId: string, metric: UsageMetric, amount?: number): void;
  /** Writes what is pending now (the usage route reads after a flush). */
  flush(): void;
  /** Stops the timer and flushes. */
  close(): void;
}

export interface UsageBufferOptions {
  /** The clock, ms since epoch; default Date.now. */
  now?: () => number;
  /** How often pending counts are written, in ms; default 1000. */
  flushMs?: number;
  /** Told when a flush fails (the counts are dropped, never retried into a double count). */
  onError?: (error: unknown) => void;
}

/**
 * A per-request counter (api_requests) must not cost a synchronous=FULL commit per request: counts
 * gather in memory per (organization, metric, month) and are written once a second and at close.
 * A crash loses at most the last second's counts.
 */
export function createUsageBuffer(db: Db, options: UsageBufferOptions = {}): UsageBuffer {
  const now = options.now ?? Date.now;
  const pending = new Map<string, { organizationId: string; metric: UsageMetric; atMs: number; amount: number }>();
  const keep = (row: { organizationId: string; metric: UsageMetric; atMs: number; amount: number }) => {
    const key = `${row.organizationId}\u0000${row.metric}\u0000${monthOf(row.atMs)}`;
    const entry = pending.get(key);
    if (entry) entry.amount += row.amount;
    else pending.set(key, { ...row });
  };
  const flush = () => {
    if (pending.size === 0 || !db.open) return;
    const rows = [...pending.values()];
    pending.clear();
    try {
      const written = writeWithoutWaiting(db, () =>
        db
          .transaction(() => {
            for (const row of rows) addUsage(db, row.organizationId, row.metric, row.amount, row.atMs);
          })
          .immediate(),
      );
      // Another process holds the write lock: nothing was written, so the counts wait for the next flush.
      if (!written) for (const row of rows) keep(row);
    } catch (error) {
      options.onError?.(error);
    }
  };
  const timer = setInterval(flush, options.flushMs ?? 1000);
  timer.unref();
  return {
    count(organizationId, metric, amount = 1) {
      keep({ organizationId, metric, atMs: now(), amount });
    },
    flush,
    close() {
      clearInterval(timer);
      flush();
    },
  };
}
