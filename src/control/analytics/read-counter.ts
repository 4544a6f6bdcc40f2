import { writeWithoutWaiting, type Db } from '../../platform/storage/index.js';
import type { Agent } from './agents.js';
import { agentMetric, fileMetric, hourOf, METRICS } from './metric-names.js';

/**
 * Counts node reads per website per hour, in total, per agent and per file (analytics_events,
 * src/control/analytics/metric-names.ts), and per organization per month (usage_counters node_reads),
 * buffered in memory and written in one transaction every few seconds and on close: a
 * synchronous=FULL write per file read would cost an fsync per request.
 */
export function createReadCounter(
  db: Db,
  options: { now?: () => number; flushMs?: number; onError?: (error: unknown) => void } = {},
) {
  const now = options.now ?? Date.now;
  /** `${websiteId}\0${hour}\0${metric}` -> reads */
  const pending = new Map<string, number>();
  const add = (key: string) => pending.set(key, (pending.get(key) ?? 0) + 1);
  const flush = () => {
    if (pending.size === 0 || !db.open) return;
    const rows = [...pending.entries()];
    pending.clear();
    const event = db.prepare(
      'INSERT INTO analytics_events (website_id, metric, period_start, value) VALUES (?, ?, ?, ?) ON CONFLICT (website_id, metric, period_start) DO UPDATE SET value = analytics_events.value + excluded.value',
    );
    const usage = db.prepare(
      "INSERT INTO usage_counters (organization_id, metric, period, value) SELECT organization_id, 'node_reads', ?, ? FROM websites WHERE id = ? ON CONFLICT (organization_id, metric, period) DO UPDATE SET value = usage_counters.value + excluded.value",
    );
    const write = db.transaction(() => {
      for (const [key, n] of rows) {
        const [websiteId, hour, metric] = key.split('\u0000') as [string, string, string];
        event.run(websiteId, metric, hour, n);
        if (metric === METRICS.nodeReads) usage.run(hour.slice(0, 7), n, websiteId);
      }
    });
    let written: boolean;
    try {
      written = writeWithoutWaiting(db, () => write.immediate());
    } catch (error) {
      // Counting must never take the server down (this runs in a timer): the counts are dropped.
      options.onError?.(error);
      return;
    }
    // Another process holds the write lock: nothing was written, so the reads wait for the next flush.
    if (!written) for (const [key, n] of rows) pending.set(key, (pending.get(key) ?? 0) + n);
  };
  const timer = setInterval(flush, options.flushMs ?? 2000);
  timer.unref();
  return {
    /** One read of `file` (its name in the node, e.g. facts.en.jsonl) by `agent`. */
    count(websiteId: string, agent: Agent, file: string): void {
      const prefix = `${websiteId}\u0000${hourOf(now())}\u0000`;
      add(prefix + METRICS.nodeReads);
      add(prefix + agentMetric(agent));
      add(prefix + fileMetric(file));
    },
    flush,
    close(): void {
      clearInterval(timer);
      flush();
    },
  };
}
