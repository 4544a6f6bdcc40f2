import type { Db } from '../../platform/storage/index.js';
import { hourOf } from './metric-names.js';

const ADD = `INSERT INTO analytics_events (website_id, metric, period_start, value) VALUES (?, ?, ?, ?)
  ON CONFLICT (website_id, metric, period_start) DO UPDATE SET value = analytics_events.value + excluded.value`;

/**
 * Adds `amount` to the website's hourly analytics row of `metric` (src/control/analytics/metric-names.ts).
 * Callers run it inside the transaction of the change it counts, so the count commits with it.
 */
export function addWebsiteEvent(db: Db, websiteId: string, metric: string, amount: number, nowMs: number): void {
  if (amount !== 0) db.prepare(ADD).run(websiteId, metric, hourOf(nowMs), amount);
}
