import type { Db } from '../../platform/storage/sqlite.js';

/** Hourly rows are kept this many days after their hour (every run rolls them up first). */
export const HOURLY_KEEP_DAYS = 3;
/** Daily rows are kept this many days: the longest range the analytics route answers, and some. */
export const DAILY_KEEP_DAYS = 400;

const DAY_MS = 86_400_000;

export interface RollupResult {
  /** Daily rows written (each replaced by the sum of its day's hourly rows). */
  days: number;
  /** Hourly rows pruned, and daily rows past retention. */
  prunedHourly: number;
  prunedDaily: number;
}

/**
 * The analytics.aggregate work (docs/knowledge.md "Analytics"): every day that still has hourly
 * rows gets daily rows of the same metrics, each the sum of that day's hours (replaced, not
 * added, so a run repeated or overlapping another counts nothing twice); then hourly rows older
 * than HOURLY_KEEP_DAYS, rolled up by now, and daily rows older than DAILY_KEEP_DAYS go. A day's
 * hourly rows are only pruned once nothing can be written to it any more (writers count the
 * current hour), so its daily row is final. One transaction.
 */
export function rollUpAnalytics(db: Db, nowMs: number): RollupResult {
  const today = Date.UTC(new Date(nowMs).getUTCFullYear(), new Date(nowMs).getUTCMonth(), new Date(nowMs).getUTCDate());
  const hourlyCutoff = new Date(today - HOURLY_KEEP_DAYS * DAY_MS).toISOString().slice(0, 10);
  const dailyCutoff = new Date(today - DAILY_KEEP_DAYS * DAY_MS).toISOString().slice(0, 10);
  return db
    .transaction((): RollupResult => {
      const days = db
        .prepare(
          `INSERT INTO analytics_events (website_id, metric, period_start, value)
        SELECT website_id, metric, substr(period_start, 1, 10), SUM(value) FROM analytics_events WHERE length(period_start) = 20 GROUP BY website_id, metric, substr(period_start, 1, 10)
        ON CONFLICT (website_id, metric, period_start) DO UPDATE SET value = excluded.value`,
        )
        .run().changes;
      const prunedHourly = db
        .prepare(`DELETE FROM analytics_events WHERE length(period_start) = 20 AND period_start < ?`)
        .run(hourlyCutoff).changes;
      const prunedDaily = db
        .prepare(`DELETE FROM analytics_events WHERE length(period_start) = 10 AND period_start < ?`)
        .run(dailyCutoff).changes;
      return { days, prunedHourly, prunedDaily };
    })
    .immediate();
}
