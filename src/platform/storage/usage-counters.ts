import type { Db } from './sqlite.js';

/** The usage counters of docs/contract.md#plans, each per organization per calendar month (UTC). */
export const USAGE_METRICS = [
  'items_ingested',
  'published_versions',
  'node_reads',
  'api_requests',
  'embedded_chunks',
] as const;
export type UsageMetric = (typeof USAGE_METRICS)[number];

/**
 * Published versions per UTC day, the counter the publishes-per-day quota reads. It lives in
 * usage_counters beside the monthly ones, with a day as its period; it is not a usage metric of
 * the contract, so the usage route does not list it.
 */
export const DAILY_PUBLISHES = 'published_versions.day';

/** The monthly period of a time: `YYYY-MM` (UTC). */
export function monthOf(nowMs: number): string {
  return new Date(nowMs).toISOString().slice(0, 7);
}

/** The daily period of a time: `YYYY-MM-DD` (UTC). */
export function dayOf(nowMs: number): string {
  return new Date(nowMs).toISOString().slice(0, 10);
}

// Only for an organization that still exists: a count arriving after an erasure (a buffered
// api_requests flush, a request that ran beside the erase job) must not write its id back.
const ADD = `INSERT INTO usage_counters (organization_id, metric, period, value)
  SELECT :org, :metric, :period, :amount WHERE EXISTS (SELECT 1 FROM organizations WHERE id = :org)
  ON CONFLICT (organization_id, metric, period) DO UPDATE SET value = usage_counters.value + excluded.value`;

/** Adds `amount` to one counter of one period of an existing organization (nothing for one that is gone). */
export function addToCounter(db: Db, organizationId: string, metric: string, period: string, amount: number): void {
  if (amount !== 0) db.prepare(ADD).run({ org: organizationId, metric, period, amount });
}

/** Adds `amount` to the organization's monthly counter `metric`. */
export function addUsage(db: Db, organizationId: string, metric: UsageMetric, amount: number, nowMs: number): void {
  addToCounter(db, organizationId, metric, monthOf(nowMs), amount);
}

/** One counter's value in one period (0 when nothing was counted). */
export function readCounter(db: Db, organizationId: string, metric: string, period: string): number {
  const row = db
    .prepare('SELECT value FROM usage_counters WHERE organization_id = ? AND metric = ? AND period = ?')
    .get(organizationId, metric, period) as { value: number } | undefined;
  return row?.value ?? 0;
}

/** Every usage metric of the organization in one month (`YYYY-MM`), 0 for those not counted. */
export function readUsage(db: Db, organizationId: string, month: string): Record<UsageMetric, number> {
  const rows = db
    .prepare('SELECT metric, value FROM usage_counters WHERE organization_id = ? AND period = ?')
    .all(organizationId, month) as Array<{ metric: string; value: number }>;
  const values = new Map(rows.map((r) => [r.metric, r.value]));
  return Object.fromEntries(USAGE_METRICS.map((m) => [m, values.get(m) ?? 0])) as Record<UsageMetric, number>;
}

/** Counts one published version: the monthly published_versions and the day's publishes. */
export function countPublishedVersion(db: Db, organizationId: string, nowMs: number): void {
  db.transaction(() => {
    addUsage(db, organizationId, 'published_versions', 1, nowMs);
    addToCounter(db, organizationId, DAILY_PUBLISHES, dayOf(nowMs), 1);
  }).immediate();
}
