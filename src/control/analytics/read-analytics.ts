import type { Db } from '../../platform/storage/index.js';
import { AGENTS, type Agent } from './agents.js';
import { AGENT_METRIC_PREFIX, FILE_METRIC_PREFIX, METRICS } from './metric-names.js';

/** Files listed in top_files. */
export const TOP_FILES = 10;

export interface AnalyticsDay {
  date: string;
  node_reads: number;
  reads_by_agent: Record<Agent, number>;
  items_ingested: number;
  published_versions: number;
}

export interface WebsiteAnalytics {
  website_id: string;
  from: string;
  to: string;
  days: AnalyticsDay[];
  /** The most read node files over the range, most first (then by name). */
  top_files: Array<{ file: string; reads: number }>;
}

const zeroAgents = () => Object.fromEntries(AGENTS.map((a) => [a, 0])) as Record<Agent, number>;

/** The dates from `from` to `to` (YYYY-MM-DD, UTC), both included. */
export function datesBetween(from: string, to: string): string[] {
  const out: string[] = [];
  for (let ms = Date.parse(`${from}T00:00:00Z`); ms <= Date.parse(`${to}T00:00:00Z`); ms += 86_400_000)
    out.push(new Date(ms).toISOString().slice(0, 10));
  return out;
}

/**
 * The website's analytics from the daily rollups (src/control/analytics/rollup.ts): one entry per day of
 * the range, days without rows at zero, and the most read files over the range.
 */
export function readWebsiteAnalytics(db: Db, websiteId: string, from: string, to: string): WebsiteAnalytics {
  const rows = db
    .prepare(
      `SELECT metric, period_start AS day, value FROM analytics_events
    WHERE website_id = ? AND length(period_start) = 10 AND period_start BETWEEN ? AND ?`,
    )
    .all(websiteId, from, to) as Array<{ metric: string; day: string; value: number }>;
  const days = new Map(
    datesBetween(from, to).map((date): [string, AnalyticsDay] => [
      date,
      { date, node_reads: 0, reads_by_agent: zeroAgents(), items_ingested: 0, published_versions: 0 },
    ]),
  );
  const files = new Map<string, number>();
  for (const row of rows) {
    const day = days.get(row.day);
    if (!day) continue;
    if (row.metric === METRICS.nodeReads) day.node_reads += row.value;
    else if (row.metric === METRICS.itemsIngested) day.items_ingested += row.value;
    else if (row.metric === METRICS.publishedVersions) day.published_versions += row.value;
    else if (row.metric.startsWith(AGENT_METRIC_PREFIX)) {
      const agent = row.metric.slice(AGENT_METRIC_PREFIX.length) as Agent;
      if (agent in day.reads_by_agent) day.reads_by_agent[agent] += row.value;
    } else if (row.metric.startsWith(FILE_METRIC_PREFIX)) {
      const file = row.metric.slice(FILE_METRIC_PREFIX.length);
      files.set(file, (files.get(file) ?? 0) + row.value);
    }
  }
  const top = [...files]
    .map(([file, reads]) => ({ file, reads }))
    .sort((a, b) => b.reads - a.reads || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0))
    .slice(0, TOP_FILES);
  return { website_id: websiteId, from, to, days: [...days.values()], top_files: top };
}
