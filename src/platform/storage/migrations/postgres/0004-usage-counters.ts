import type { PostgresMigration } from '../../postgres.js';

/** Usage counters per organization, metric and period (as control.sqlite's usage_counters). */
export const migration: PostgresMigration = {
  version: 4,
  name: 'usage-counters',
  sql: `
    CREATE TABLE usage_counters (
      organization_id TEXT NOT NULL,
      metric TEXT NOT NULL,
      period TEXT NOT NULL,
      value BIGINT NOT NULL DEFAULT 0,
      PRIMARY KEY (organization_id, metric, period)
    );
  `,
};
