import type { Db } from '../storage/sqlite.js';

/**
 * Counts node reads per website per hour (analytics_events metric node.reads) and per
 * organization per month (usage_counters node_reads), buffered in memory and written in one
 * transaction every few seconds and on close: a synchronous=FULL write per file read would cost
 * an fsync per request.
 */
export function createReadCounter(db: Db, options: { now?: () => number; flushMs?: number } = {}) {
  const now = options.now ?? Date.now;
  const pending = new Map<string, number>();
  const flush = () => {
    if (pending.size === 0 || !db.open) return;
    const rows = [...pending.entries()];
    pending.clear();
    const event = db.prepare('INSERT INTO analytics_events (website_id, metric, period_start, value) VALUES (?, ?, ?, ?) ON CONFLICT (website_id, metric, period_start) DO UPDATE SET value = value + excluded.value');
    const usage = db.prepare("INSERT INTO usage_counters (organization_id, metric, period, value) SELECT organization_id, 'node_reads', ?, ? FROM websites WHERE id = ? ON CONFLICT (organization_id, metric, period) DO UPDATE SET value = value + excluded.value");
    db.transaction(() => {
      for (const [key, n] of rows) {
        const [websiteId, hour] = key.split('\u0000') as [string, string];
        event.run(websiteId, 'node.reads', hour, n);
        usage.run(hour.slice(0, 7), n, websiteId);
      }
    }).immediate();
  };
  const timer = setInterval(flush, options.flushMs ?? 2000);
  timer.unref();
  return {
    count(websiteId: string): void {
      const hour = new Date(now()).toISOString().slice(0, 13) + ':00:00Z';
      const key = `${websiteId}\u0000${hour}`;
      pending.set(key, (pending.get(key) ?? 0) + 1);
    },
    flush,
    close(): void {
      clearInterval(timer);
      flush();
    },
  };
}
