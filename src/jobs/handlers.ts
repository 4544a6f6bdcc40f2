import type { Job } from './queue.js';
import type { AppServices } from '../daemon/services.js';

/** Runs one job. Throwing marks the attempt failed (retried with backoff, then dead-lettered). */
export type JobHandler = (job: Job, services: AppServices, signal: AbortSignal) => Promise<void>;

/** Periodic jobs of the contract and how often the scheduler enqueues them. */
export const PERIODIC_JOBS: ReadonlyArray<{ kind: string; intervalSeconds: number }> = [
  { kind: 'analytics.aggregate', intervalSeconds: 3600 },
  { kind: 'verification.check', intervalSeconds: 3600 },
  { kind: 'connector.heartbeat.check', intervalSeconds: 300 },
  { kind: 'maintenance.expire', intervalSeconds: 300 },
];
