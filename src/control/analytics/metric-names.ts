import type { Agent } from './agents.js';

/**
 * The rows of control.sqlite's analytics_events (website_id, metric, period_start, value) that
 * analytics reads (docs/knowledge.md "Analytics"). Writers add to hourly rows (period_start
 * `YYYY-MM-DDTHH:00:00Z`); analytics.aggregate sums them into daily rows of the same metric
 * (period_start `YYYY-MM-DD`), which the analytics route answers from.
 */
export const METRICS = {
  /** Node files served (200 and 304), every file and reader. */
  nodeReads: 'node.reads',
  /** Items accepted by ingest. */
  itemsIngested: 'items.ingested',
  /** New versions published (not dry runs, not an already-live build). */
  publishedVersions: 'published.versions',
} as const;

export const agentMetric = (agent: Agent) => `node.reads.agent.${agent}`;
export const fileMetric = (file: string) => `node.reads.file.${file}`;
export const FILE_METRIC_PREFIX = 'node.reads.file.';
export const AGENT_METRIC_PREFIX = 'node.reads.agent.';

/** The hour a time falls in, as an hourly row's period_start. */
export function hourOf(nowMs: number): string {
  return new Date(nowMs).toISOString().slice(0, 13) + ':00:00Z';
}
