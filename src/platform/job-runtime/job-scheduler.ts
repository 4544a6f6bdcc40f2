import type { Db } from '../storage/index.js';
import type { JobDefinition } from './define-job.js';
import type { JobQueue } from '../jobs/index.js';

/** The kinds of `jobs` that carry a schedule: what the scheduler enqueues, and how often. */
export function periodicJobs(jobs: readonly JobDefinition[]): Array<{ job: JobDefinition; intervalSeconds: number }> {
  return jobs.flatMap((job) => (job.schedule ? [{ job, intervalSeconds: job.schedule.intervalSeconds }] : []));
}

/**
 * Enqueues the periodic jobs (the definitions with a schedule) when they are due. The next run
 * time lives in the control database, so a restart neither skips nor doubles a run, and a dedupe
 * key keeps one instance in the queue.
 */
export function enqueueDuePeriodicJobs(
  db: Db,
  queue: JobQueue,
  jobs: readonly JobDefinition[],
  now = Date.now(),
): string[] {
  const periodic = periodicJobs(jobs);
  const enqueued: string[] = [];
  const tx = db.transaction(() => {
    unscheduleDroppedKinds(
      db,
      periodic.map(({ job }) => job.kind),
    );
    for (const { job, intervalSeconds } of periodic) {
      const kind = job.kind;
      db.prepare(
        'INSERT INTO schedules (kind, interval_seconds, next_run_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
      ).run(kind, intervalSeconds, now);
      const row = db.prepare('SELECT next_run_at FROM schedules WHERE kind = ?').get(kind) as { next_run_at: number };
      if (row.next_run_at > now) continue;
      queue.enqueue(job, {}, { dedupeKey: scheduleKey(kind) });
      db.prepare('UPDATE schedules SET next_run_at = ?, interval_seconds = ? WHERE kind = ?').run(
        now + intervalSeconds * 1000,
        intervalSeconds,
        kind,
      );
      enqueued.push(kind);
    }
  });
  tx.immediate();
  return enqueued;
}

/**
 * A data directory made by an older build may schedule kinds that are no longer periodic (the
 * no-op placeholders): their schedule rows and their still-queued instances go, so nothing
 * waits forever for a handler that is not there.
 */
function unscheduleDroppedKinds(db: Db, kinds: readonly string[]): void {
  const dropped = db
    .prepare(`SELECT kind FROM schedules WHERE kind NOT IN (${kinds.map(() => '?').join(',')})`)
    .all(...kinds) as Array<{ kind: string }>;
  for (const { kind } of dropped) {
    db.prepare('DELETE FROM schedules WHERE kind = ?').run(kind);
    db.prepare(`DELETE FROM jobs WHERE dedupe_key = ? AND state = 'queued'`).run(scheduleKey(kind));
  }
}

function scheduleKey(kind: string): string {
  return `schedule:${kind}`;
}

export function startScheduler(db: Db, queue: JobQueue, jobs: readonly JobDefinition[], everyMs = 30_000): () => void {
  const tick = () => {
    try {
      enqueueDuePeriodicJobs(db, queue, jobs);
    } catch {
      // A busy database is retried on the next tick.
    }
  };
  tick();
  const timer = setInterval(tick, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
