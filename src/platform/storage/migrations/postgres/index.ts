import type { PostgresMigration } from '../../postgres.js';
import { migration as nonces } from './0001-nonces.js';
import { migration as idempotency } from './0002-idempotency.js';
import { migration as rateLimits } from './0003-rate-limits.js';
import { migration as usageCounters } from './0004-usage-counters.js';
import { migration as jobs } from './0005-jobs.js';
import { migration as schedules } from './0006-schedules.js';
import { migration as websiteLeases } from './0007-website-leases.js';
import { migration as controlTables } from './0008-control-tables.js';
import { migration as graphHandover } from './0009-graph-handover.js';

/**
 * The schema of the PostgreSQL control store (controlStore = postgres://...), oldest first: one
 * migration per file, `NNNN-name.ts`, one table each, applied by migratePostgres() in one
 * transaction under an advisory lock, so daemons starting together apply each step once.
 * Forward-only, as the SQLite ones (migrations/control/index.ts); times are BIGINT ms since the epoch.
 */
export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  nonces,
  idempotency,
  rateLimits,
  usageCounters,
  jobs,
  schedules,
  websiteLeases,
  controlTables,
  graphHandover,
];
