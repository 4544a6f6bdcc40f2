import type { Job } from './queue.js';
import type { AppServices } from '../daemon/services.js';

/** Runs one job. Throwing marks the attempt failed (retried with backoff, then dead-lettered). */
export type JobHandler = (job: Job, services: AppServices, signal: AbortSignal) => Promise<void>;

/** Periodic jobs the scheduler enqueues, and how often. Each has a real handler in registry.ts. */
export const PERIODIC_JOBS: ReadonlyArray<{ kind: string; intervalSeconds: number }> = [
  { kind: 'maintenance.expire', intervalSeconds: 300 },
  { kind: 'maintenance.rate_limits.prune', intervalSeconds: 3600 },
  { kind: 'maintenance.jobs.prune', intervalSeconds: 3600 },
];

/**
 * Periodic jobs of the contract whose work has not arrived yet. They are not scheduled: a no-op
 * run would show in `nodectl jobs list` as succeeded work that never happened. The issue that
 * gives one a handler moves it to PERIODIC_JOBS.
 */
export const PLANNED_PERIODIC_JOBS: ReadonlyArray<{ kind: string; intervalSeconds: number }> = [
  { kind: 'analytics.aggregate', intervalSeconds: 3600 },
  { kind: 'verification.check', intervalSeconds: 3600 },
  { kind: 'connector.heartbeat.check', intervalSeconds: 300 },
];
