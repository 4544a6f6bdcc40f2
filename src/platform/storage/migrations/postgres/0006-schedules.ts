import type { PostgresMigration } from '../../postgres.js';

/**
 * The periodic jobs' next run times (as control.sqlite's schedules): the daemon whose UPDATE moves
 * a kind's next_run_at enqueues its run, so each period runs once across the cluster.
 */
export const migration: PostgresMigration = {
  version: 6,
  name: 'schedules',
  sql: `
    CREATE TABLE schedules (
      kind TEXT PRIMARY KEY,
      interval_seconds INTEGER NOT NULL,
      next_run_at BIGINT NOT NULL
    );
  `,
};
