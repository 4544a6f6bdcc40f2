import { newUlid } from '../ids/ulid.js';
import type { JobQueue, Job } from './queue.js';
import type { JobHandler } from './handlers.js';
import type { AppServices } from '../daemon/services.js';

export interface WorkerOptions {
  concurrency: number;
  pollMs: number;
  /** Called after each attempt, for metrics and logs. */
  onOutcome?: (job: Job, outcome: 'succeeded' | 'retry' | 'dead', error?: unknown) => void;
}

/**
 * Polls the queue and runs due jobs with the registered handlers, up to `concurrency` at once.
 * stop() stops claiming and waits for the jobs in flight, so a shutdown never cuts one in half.
 */
export class JobWorker {
  readonly id = `worker_${newUlid()}`;
  private readonly inFlight = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private stopping = false;
  private readonly abort = new AbortController();

  constructor(
    private readonly queue: JobQueue,
    private readonly handlers: ReadonlyMap<string, JobHandler>,
    private readonly services: AppServices,
    private readonly options: WorkerOptions,
  ) {}

  start(): void {
    this.schedule(0);
  }

  /** Runs every due job of the given kinds once, then returns (for `nodectl jobs run`). */
  async drain(kinds?: readonly string[]): Promise<number> {
    let ran = 0;
    for (;;) {
      const job = this.queue.claim(this.id, kinds ?? [...this.handlers.keys()]);
      if (!job) return ran;
      await this.run(job);
      ran++;
    }
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    await Promise.allSettled([...this.inFlight]);
  }

  private schedule(delay: number): void {
    if (this.stopping) return;
    this.timer = setTimeout(() => this.tick(), delay);
    this.timer.unref();
  }

  private tick(): void {
    if (this.stopping) return;
    let claimed = false;
    try {
      while (this.inFlight.size < this.options.concurrency) {
        const job = this.queue.claim(this.id, [...this.handlers.keys()]);
        if (!job) break;
        claimed = true;
        const running = this.run(job).finally(() => {
          this.inFlight.delete(running);
          this.schedule(0);
        });
        this.inFlight.add(running);
      }
    } catch (error) {
      this.services.logger.error({ err: error }, 'job claim failed');
    }
    if (!claimed) this.schedule(this.options.pollMs);
  }

  private async run(job: Job): Promise<void> {
    const handler = this.handlers.get(job.kind);
    const leaseRenewal = setInterval(() => this.queue.heartbeat(job.id, this.id), 10_000);
    leaseRenewal.unref();
    try {
      if (!handler) throw new Error(`no handler for job kind ${job.kind}`);
      await handler(job, this.services, this.abort.signal);
      this.queue.complete(job.id, this.id);
      this.options.onOutcome?.(job, 'succeeded');
    } catch (error) {
      const after = this.queue.fail(job.id, this.id, error instanceof Error ? error.message : String(error));
      this.options.onOutcome?.(job, after?.state === 'dead' ? 'dead' : 'retry', error);
      this.services.logger.warn({ jobId: job.id, kind: job.kind, attempt: job.attempts, err: error }, 'job attempt failed');
    } finally {
      clearInterval(leaseRenewal);
    }
  }
}
