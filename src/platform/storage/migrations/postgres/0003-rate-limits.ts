import type { PostgresMigration } from '../../postgres.js';

/** Fixed-window rate-limit counters (as control.sqlite's rate_limits). */
export const migration: PostgresMigration = {
  version: 3,
  name: 'rate-limits',
  sql: `
    CREATE TABLE rate_limits (
      bucket TEXT NOT NULL,
      window_start BIGINT NOT NULL,
      count BIGINT NOT NULL,
      PRIMARY KEY (bucket, window_start)
    );
  `,
};
