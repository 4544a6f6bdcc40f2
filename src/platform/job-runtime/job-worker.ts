import { newUlid } from '../ids/index.js';
import type { Settings } from '../config/index.js';
import { isStorageFault } from '../errors/index.js';
import type { AppServices } from '../app/index.js';
import {
  describeIssues,
  indexJobsByKind,
  JobDeferredError,
  JOB_LANES,
  type JobDefinition,
  type JobLane,
} from './define-job.js';
import { isPromise, type Job, type JobStore } from '../jobs/index.js';

/** Jobs the worker starts in one turn of the event loop, one after another, before it lets the loop run. */
const JOBS_PER_TURN = 8;
/** A job that met a full or failing disk runs again after this long, its attempt not spent. */
export const STORAGE_FAULT_RETRY_MS = 5_000;
/** The longest wait between two renewals of a running job's lease (a third of the lease when that is shorter). */
const LEASE_RENEWAL_MS = 10_000;

/** Jobs each lane runs at once. */
export type LaneConcurrency = Readonly<Record<JobLane, number>>;

export interface WorkerOptions {
  lanes: LaneConcurrency;
  pollMs: number;
  /** Called after each attempt, for metrics and logs. */
  onOutcome?: (job: Job, outcome: 'succeeded' | 'retry' | 'dead', error?: unknown) => void;
}

/** The lane concurrencies of the settings (NODECTL_JOB_LANE_<LANE>_CONCURRENCY). */
export function laneConcurrency(settings: Settings): LaneConcurrency {
  return {
    ingest: settings.jobLaneIngestConcurrency,
    publish: settings.jobLanePublishConcurrency,
    delivery: settings.jobLaneDeliveryConcurrency,
    maintenance: settings.jobLaneMaintenanceConcurrency,
    embeddings: settings.jobLaneEmbeddingsConcurrency,
  };
}

interface Lane {
  readonly kinds: readonly string[];
  readonly concurrency: number;
  readonly inFlight: Set<Promise<void>>;
}

/**
 * Polls the queue and runs due jobs with their definitions' handlers. Each lane runs up to its own
 * concurrency, and a claim asks only for kinds of lanes with a free slot, so a lane full of slow
 * jobs never holds up the due jobs of another lane.
 * stop() stops claiming and waits for the jobs in flight, so a shutdown never cuts one in half.
 */
export class JobWorker {
  readonly id = `worker_${newUlid()}`;
  private readonly byKind: ReadonlyMap<string, JobDefinition>;
  private readonly lanes: ReadonlyMap<JobLane, Lane>;
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  /** Jobs started since the event loop last ran its I/O (reset by setImmediate). */
  private startedThisTurn = 0;
  private stopping = false;
  /** The last claim failed (a full disk, say): logged once, and once more when claims work again. */
  private claimFailing = false;
  /** A claim of a store that answers later, under way: one at a time, so lanes never overfill. */
  private claiming: Promise<void> | undefined;
  /** A tick was asked for while claiming: it runs once the claim is in. */
  private tickAgain = false;
  private readonly abort = new AbortController();

  constructor(
    private readonly queue: JobStore,
    jobs: readonly JobDefinition[],
    private readonly services: AppServices,
    private readonly options: WorkerOptions,
  ) {
    this.byKind = indexJobsByKind(jobs);
    this.lanes = new Map(
      JOB_LANES.map((name) => [
        name,
        {
          kinds: jobs.filter((job) => job.lane === name).map((job) => job.kind),
          concurrency: options.lanes[name],
          inFlight: new Set<Promise<void>>(),
        },
      ]),
    );
  }

  start(): void {
    // A job enqueued now is claimed on the next turn of the event loop, not after up to pollMs.
    this.unsubscribe = this.queue.onEnqueue((job) => {
      if (this.byKind.has(job.kind) && job.runAt <= Date.now()) this.schedule(0);
    });
    this.schedule(0);
  }

  /** Runs every due job of the given kinds (default: all) one at a time, then returns (for `nodectl jobs run`). */
  async drain(kinds?: readonly string[]): Promise<number> {
    let ran = 0;
    for (;;) {
      const job = await this.queue.claim(this.id, kinds ?? [...this.byKind.keys()]);
      if (!job) return ran;
      await this.run(job);
      ran++;
    }
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.unsubscribe?.();
    this.abort.abort();
    clearTimeout(this.timer);
    // A claim answered after stop() began still runs its job (it holds the lease): wait for both.
    await this.claiming;
    await Promise.allSettled([...this.lanes.values()].flatMap((lane) => [...lane.inFlight]));
  }

  private schedule(delay: number): void {
    if (this.stopping) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.tick(), delay);
    this.timer.unref();
  }

  /**
   * Claims due jobs for the lanes with a free slot until none is due. A finished job ticks again
   * at once, in the same turn of the event loop (not on a timer): the next job starts before the
   * loop handles anything else, so a content.ingest job hands its batch to the extraction worker
   * before the job already extracted starts writing, and the two overlap (docs/graph.md
   * "Throughput"). On a timer, the extracted job wrote first and the worker idled meanwhile.
   * After JOBS_PER_TURN jobs in one turn it waits for the next one: jobs that finish without
   * waiting for anything would otherwise hold the event loop (requests) until the queue is empty.
   * A store that answers synchronously (SQLite) is claimed from in this loop; one that answers
   * with a promise (PostgreSQL) has one claim awaited at a time, and the loop goes on after it.
   */
  private tick(): void {
    if (this.stopping) return;
    if (this.claiming) return void (this.tickAgain = true);
    try {
      for (;;) {
        const kinds = [...this.lanes.values()].flatMap((lane) =>
          lane.inFlight.size < lane.concurrency ? lane.kinds : [],
        );
        if (kinds.length === 0) break;
        const claimed = this.queue.claim(this.id, kinds);
        if (isPromise(claimed)) return this.awaitClaim(claimed);
        if (!claimed) break;
        this.startJob(claimed);
      }
      this.claimsWork();
    } catch (error) {
      this.claimFailed(error);
    }
    this.schedule(this.options.pollMs);
  }

  /** Waits for one claim of a store that answers later, then starts its job and claims on, or polls. */
  private awaitClaim(claimed: Promise<Job | undefined>): void {
    this.tickAgain = false;
    this.claiming = claimed.then(
      (job) => {
        this.claiming = undefined;
        if (job) this.startJob(job);
        if (job || this.tickAgain) return this.tick();
        this.claimsWork();
        this.schedule(this.options.pollMs);
      },
      (error: unknown) => {
        this.claiming = undefined;
        this.claimFailed(error);
        this.schedule(this.options.pollMs);
      },
    );
  }

  private startJob(job: Job): void {
    const lane = this.lanes.get(this.byKind.get(job.kind)!.lane)!;
    this.countStartedThisTurn();
    const running = this.run(job).finally(() => {
      lane.inFlight.delete(running);
      if (this.startedThisTurn < JOBS_PER_TURN) this.tick();
      else this.schedule(0);
    });
    lane.inFlight.add(running);
  }

  private claimsWork(): void {
    if (this.claimFailing) this.services.logger.info({}, 'job claims work again');
    this.claimFailing = false;
  }

  private claimFailed(error: unknown): void {
    if (!this.claimFailing) this.services.logger.error({ err: error }, 'job claim failed; retrying at each poll');
    this.claimFailing = true;
  }

  private countStartedThisTurn(): void {
    if (this.startedThisTurn++ === 0) setImmediate(() => void (this.startedThisTurn = 0));
  }

  /**
   * Runs one claimed job and records its outcome. Never rejects: an outcome that cannot be
   * written (a full disk) leaves the job leased, and it runs again once the lease lapses.
   */
  private async run(job: Job): Promise<void> {
    const definition = this.byKind.get(job.kind);
    const parsed = definition?.payload.safeParse(job.payload);
    if (parsed && !parsed.success) {
      // A stored payload that no longer matches its schema fails the same way on every retry.
      const error = `${job.kind} payload no longer matches its schema: ${describeIssues(parsed.error.issues)}`;
      await this.record(job, new Error(error), () => this.queue.deadLetter(job.id, this.id, error));
      this.options.onOutcome?.(job, 'dead', new Error(error));
      this.services.logger.warn(
        { jobId: job.id, kind: job.kind, error },
        'job dead-lettered: its payload does not parse',
      );
      return;
    }
    const leaseRenewal = setInterval(
      () => void this.record(job, undefined, () => this.queue.heartbeat(job.id, this.id)),
      Math.min(LEASE_RENEWAL_MS, this.queue.leaseMs / 3),
    );
    leaseRenewal.unref();
    try {
      if (!definition || !parsed) throw new Error(`no definition for job kind ${job.kind}`);
      await definition.handler(parsed.data, { job, services: this.services, signal: this.abort.signal });
      await this.queue.complete(job.id, this.id);
      this.options.onOutcome?.(job, 'succeeded');
    } catch (error) {
      await this.recordFailure(job, error);
    } finally {
      clearInterval(leaseRenewal);
    }
  }

  /**
   * A failure is retried after the queue's backoff and dead-lettered after its attempts; a full or
   * failing disk is not the job's fault, so it is retried after STORAGE_FAULT_RETRY_MS and spends
   * no attempt, however long the disk stays full.
   */
  private async recordFailure(job: Job, error: unknown): Promise<void> {
    const log = { jobId: job.id, kind: job.kind, attempt: job.attempts, err: error };
    if (error instanceof JobDeferredError) {
      await this.record(job, error, () => this.queue.postpone(job.id, this.id, error.message, error.delayMs));
      this.options.onOutcome?.(job, 'retry', error);
      return;
    }
    if (isStorageFault(error)) {
      const recorded = await this.record(job, error, () =>
        this.queue.postpone(job.id, this.id, describeFailure(error), STORAGE_FAULT_RETRY_MS),
      );
      this.options.onOutcome?.(job, 'retry', error);
      if (recorded)
        this.services.logger.warn(
          log,
          `job postponed: the data directory's disk is full or failing; it runs again in ${STORAGE_FAULT_RETRY_MS / 1000} s, its attempt not spent`,
        );
      return;
    }
    let state: Job['state'] | undefined;
    await this.record(
      job,
      error,
      async () => (state = (await this.queue.fail(job.id, this.id, describeFailure(error)))?.state),
    );
    this.options.onOutcome?.(job, state === 'dead' ? 'dead' : 'retry', error);
    this.services.logger.warn(log, 'job attempt failed');
  }

  /**
   * Runs one write of the job's bookkeeping; returns false, having logged it, when it throws: a
   * full disk must not end the loop (nor the daemon). The job keeps its lease until it lapses.
   */
  private async record(job: Job, failure: unknown, write: () => unknown): Promise<boolean> {
    try {
      await write();
      return true;
    } catch (error) {
      this.services.logger.error(
        {
          jobId: job.id,
          kind: job.kind,
          err: error,
          ...(failure === undefined ? {} : { failure: describeFailure(failure) }),
        },
        'job bookkeeping could not be written; the job runs again once its lease lapses',
      );
      return false;
    }
  }
}

/** An error's message and its causes' (a job wraps what a thread or a store threw), for last_error. */
function describeFailure(error: unknown): string {
  const parts: string[] = [];
  for (let current = error, depth = 0; current !== undefined && depth < 4; depth++) {
    parts.push(current instanceof Error ? current.message : String(current));
    current = current instanceof Error ? current.cause : undefined;
  }
  return parts.join(': ');
}
