import type { z } from 'zod';
import type { AppServices } from '../app/index.js';
import type { Job } from '../jobs/index.js';

/**
 * The worker runs each lane with its own concurrency, so a lane full of slow jobs (webhook
 * deliveries to a dead endpoint, a large publish) never holds up another lane's jobs.
 */
export const JOB_LANES = ['ingest', 'publish', 'delivery', 'maintenance', 'embeddings'] as const;
export type JobLane = (typeof JOB_LANES)[number];

/** What a handler gets beside its payload. */
export interface JobContext {
  /** The claimed job: id, kind, attempts (its payload is the parsed one passed to the handler). */
  readonly job: Job;
  readonly services: AppServices;
  /** Aborted when the worker stops; a long handler gives up at a safe point and is retried later. */
  readonly signal: AbortSignal;
}

/**
 * Everything about one job kind, in one `*-job.ts` file of the feature that owns it (listed in src/daemon/job-definitions.ts). The
 * payload is parsed with its schema when enqueued and again when claimed, so a handler only ever
 * sees a payload of its own type.
 */
export interface JobDefinition<S extends z.ZodType = z.ZodType> {
  /** `area.verb` (e.g. `content.ingest`); stored in the jobs table, so never renamed. */
  readonly kind: string;
  readonly lane: JobLane;
  readonly payload: S;
  /** Runs one job. Throwing fails the attempt (retried with backoff, then dead-lettered). */
  handler(payload: z.output<S>, context: JobContext): Promise<void>;
  /** Enqueued by the scheduler every `intervalSeconds` (with the payload `{}`). */
  readonly schedule?: { readonly intervalSeconds: number };
}

/**
 * Thrown by a handler when the job cannot run in this process now but is not at fault (another
 * daemon writes the website's graph): the job runs again after `delayMs`, its attempt not spent.
 */
export class JobDeferredError extends Error {
  constructor(
    message: string,
    readonly delayMs: number,
  ) {
    super(message);
    this.name = 'JobDeferredError';
  }
}

/** What a caller passes to enqueue a job of this kind. */
export type JobPayloadInput<J extends JobDefinition> = z.input<J['payload']>;
/** What the handler of this kind receives. */
export type JobPayload<J extends JobDefinition> = z.output<J['payload']>;

const KIND = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;

/**
 * Declares a job kind; a definition that could never run (bad kind, schedule without a `{}` payload) throws at load.
 */
export function defineJob<S extends z.ZodType>(definition: JobDefinition<S>): JobDefinition<S> {
  if (!KIND.test(definition.kind))
    throw new Error(
      `job kind ${JSON.stringify(definition.kind)} must be dot-separated lower-case words, e.g. content.ingest`,
    );
  if (!JOB_LANES.includes(definition.lane))
    throw new Error(
      `job ${definition.kind}: lane must be one of ${JOB_LANES.join(', ')}; got ${String(definition.lane)}`,
    );
  const interval = definition.schedule?.intervalSeconds;
  if (interval !== undefined && !(Number.isInteger(interval) && interval > 0))
    throw new Error(
      `job ${definition.kind}: schedule.intervalSeconds must be a positive whole number; got ${interval}`,
    );
  if (interval !== undefined && !definition.payload.safeParse({}).success)
    throw new Error(
      `job ${definition.kind}: a scheduled job is enqueued with the payload {}, which its schema rejects`,
    );
  return Object.freeze({ ...definition });
}

/** The definitions by kind; a kind defined twice throws (two handlers would race for its jobs). */
export function indexJobsByKind(jobs: readonly JobDefinition[]): ReadonlyMap<string, JobDefinition> {
  const byKind = new Map<string, JobDefinition>();
  for (const job of jobs) {
    if (byKind.has(job.kind)) throw new Error(`job kind ${job.kind} is defined twice`);
    byKind.set(job.kind, job);
  }
  return byKind;
}

export { describeIssues, JobPayloadError, parseJobPayload } from '../jobs/index.js';
