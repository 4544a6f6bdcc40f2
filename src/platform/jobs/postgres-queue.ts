import type { z } from 'zod';
import { newUlid } from '../ids/index.js';
import type { PostgresQuery, PostgresStore } from '../storage/index.js';
import { JobPayloadError, parseJobPayload, type JobKind } from './payload.js';
import {
  queueSettings,
  retryDelayMs,
  toJob,
  type EnqueueOptions,
  type Job,
  type JobItemError,
  type JobItemErrors,
  type JobListFilter,
  type JobQueueOptions,
  type JobRow,
  type JobState,
  type JobStore,
  type PeriodicKind,
  type QueueSettings,
} from './queue.js';

/** A jobs row as pg returns it: BIGINT columns come back as strings. */
type PgJobRow = Omit<JobRow, 'run_at' | 'lease_until' | 'created_at' | 'updated_at'> & {
  run_at: string;
  lease_until: string | null;
  created_at: string;
  updated_at: string;
};

function fromPg(row: PgJobRow): Job {
  return toJob({
    ...row,
    run_at: Number(row.run_at),
    lease_until: row.lease_until === null ? null : Number(row.lease_until),
    created_at: Number(row.created_at),
    updated_at: Number(row.updated_at),
  });
}

const OPEN = `state IN ('queued','running')`;

/**
 * The job queue in the PostgreSQL control store, for several daemons sharing one queue: the same
 * behaviour as JobQueue (leases, backoff, dead letter, dedupe keys, merge), every statement
 * parameterized. A claim is one UPDATE of the row its subquery locked with FOR UPDATE SKIP LOCKED,
 * so concurrent claimers on any daemon skip each other's rows instead of waiting or sharing one.
 */
export class PostgresJobQueue implements JobStore {
  private readonly settings: QueueSettings;
  readonly leaseMs: number;
  private readonly now: () => number;
  private readonly enqueueListeners = new Set<(job: Job) => void>();

  constructor(
    private readonly store: PostgresStore,
    options: JobQueueOptions = {},
  ) {
    this.settings = queueSettings(options);
    this.leaseMs = this.settings.leaseMs;
    this.now = this.settings.now;
  }

  async enqueue<S extends z.ZodType>(
    job: JobKind<S>,
    payload: z.input<S>,
    options: EnqueueOptions<z.output<S>> = {},
  ): Promise<Job> {
    const parsed = parseJobPayload(job, payload);
    const now = this.now();
    const enqueued = await this.store.transaction((query) => this.insert(query, job, parsed, options, now));
    for (const listener of this.enqueueListeners) listener(enqueued);
    return enqueued;
  }

  /**
   * Inserts the job, or returns (or merges into) the open one with its dedupe key. An insert that
   * loses a race for the key (ON CONFLICT DO NOTHING returns no row) looks again: the winner has
   * committed by then, since the conflict check waits for it.
   */
  private async insert<S extends z.ZodType>(
    query: PostgresQuery,
    job: JobKind<S>,
    parsed: z.output<S>,
    options: EnqueueOptions<z.output<S>>,
    now: number,
  ): Promise<Job> {
    for (;;) {
      if (options.dedupeKey) {
        const { rows } = await query<PgJobRow>(`SELECT * FROM jobs WHERE dedupe_key = $1 AND ${OPEN} FOR UPDATE`, [
          options.dedupeKey,
        ]);
        const existing = rows[0];
        if (existing && existing.state === 'queued' && options.merge) {
          const queued = job.payload.safeParse(JSON.parse(existing.payload));
          if (queued.success) {
            const merged = parseJobPayload(job, options.merge(queued.data));
            const updated = await query<PgJobRow>(
              'UPDATE jobs SET payload = $1, updated_at = $2 WHERE id = $3 RETURNING *',
              [JSON.stringify(merged ?? null), now, existing.id],
            );
            return fromPg(updated.rows[0]!);
          }
          await bury(query, existing.id, new JobPayloadError(job.kind, queued.error.issues).message, now);
        } else if (existing) {
          return fromPg(existing);
        }
      }
      const { rows } = await query<PgJobRow>(
        `INSERT INTO jobs (id, kind, payload, state, attempts, max_attempts, run_at, dedupe_key, created_at, updated_at)
         VALUES ($1, $2, $3, 'queued', 0, $4, $5, $6, $7, $7)
         ON CONFLICT (dedupe_key) WHERE dedupe_key IS NOT NULL AND ${OPEN} DO NOTHING
         RETURNING *`,
        [
          `job_${newUlid(now)}`,
          job.kind,
          JSON.stringify(parsed ?? null),
          options.maxAttempts ?? this.settings.maxAttempts,
          options.runAt ?? now,
          options.dedupeKey ?? null,
          now,
        ],
      );
      if (rows[0]) return fromPg(rows[0]);
    }
  }

  onEnqueue(listener: (job: Job) => void): () => void {
    this.enqueueListeners.add(listener);
    return () => void this.enqueueListeners.delete(listener);
  }

  async get(id: string): Promise<Job | undefined> {
    const { rows } = await this.store.query<PgJobRow>('SELECT * FROM jobs WHERE id = $1', [id]);
    return rows[0] ? fromPg(rows[0]) : undefined;
  }

  /** Claims the next due job (a queued one whose time has come, or a running one whose lease lapsed) in one statement. */
  async claim(owner: string, kinds?: readonly string[]): Promise<Job | undefined> {
    const now = this.now();
    const { rows } = await this.store.query<PgJobRow>(
      `UPDATE jobs SET state = 'running', attempts = attempts + 1, lease_owner = $1, lease_until = $2, updated_at = $3
       WHERE id = (
         SELECT id FROM jobs
         WHERE ((state = 'queued' AND run_at <= $3) OR (state = 'running' AND lease_until < $3))
           AND ($4::text[] IS NULL OR kind = ANY($4::text[]))
         ORDER BY run_at, id LIMIT 1
         FOR UPDATE SKIP LOCKED)
       RETURNING *`,
      [owner, now + this.leaseMs, now, kinds && kinds.length > 0 ? [...kinds] : null],
    );
    return rows[0] ? fromPg(rows[0]) : undefined;
  }

  async heartbeat(id: string, owner: string): Promise<boolean> {
    const now = this.now();
    const { rowCount } = await this.store.query(
      `UPDATE jobs SET lease_until = $1, updated_at = $2 WHERE id = $3 AND lease_owner = $4 AND state = 'running'`,
      [now + this.leaseMs, now, id, owner],
    );
    return rowCount === 1;
  }

  async addItemErrors(id: string, errors: readonly JobItemError[]): Promise<void> {
    if (errors.length === 0) return;
    await this.store.transaction(async (query) => {
      const { rows } = await query<{ item_errors: string | null }>(
        'SELECT item_errors FROM jobs WHERE id = $1 FOR UPDATE',
        [id],
      );
      const row = rows[0];
      if (!row) return;
      const kept: JobItemErrors = row.item_errors === null ? { count: 0, listed: [] } : JSON.parse(row.item_errors);
      kept.count += errors.length;
      kept.listed.push(...errors.slice(0, Math.max(0, this.settings.itemErrorsListed - kept.listed.length)));
      await query('UPDATE jobs SET item_errors = $1 WHERE id = $2', [JSON.stringify(kept), id]);
    });
  }

  async complete(id: string, owner: string): Promise<void> {
    await this.store.query(
      `UPDATE jobs SET state = 'succeeded', lease_owner = NULL, lease_until = NULL, last_error = NULL, updated_at = $1
       WHERE id = $2 AND lease_owner = $3`,
      [this.now(), id, owner],
    );
  }

  async fail(id: string, owner: string, error: string): Promise<Job | undefined> {
    const now = this.now();
    return this.store.transaction(async (query) => {
      const { rows } = await query<PgJobRow>('SELECT * FROM jobs WHERE id = $1 FOR UPDATE', [id]);
      const job = rows[0] ? fromPg(rows[0]) : undefined;
      if (!job || job.leaseOwner !== owner) return job;
      if (job.attempts >= job.maxAttempts) return bury(query, id, error, now);
      const delay = retryDelayMs(this.settings, job.attempts);
      const updated = await query<PgJobRow>(
        `UPDATE jobs SET state = 'queued', run_at = $1, lease_owner = NULL, lease_until = NULL, last_error = $2, updated_at = $3
         WHERE id = $4 RETURNING *`,
        [now + delay, error, now, id],
      );
      return fromPg(updated.rows[0]!);
    });
  }

  async postpone(id: string, owner: string, error: string, delayMs: number): Promise<Job | undefined> {
    const now = this.now();
    await this.store.query(
      `UPDATE jobs SET state = 'queued', attempts = GREATEST(attempts - 1, 0), run_at = $1, lease_owner = NULL,
         lease_until = NULL, last_error = $2, updated_at = $3
       WHERE id = $4 AND lease_owner = $5 AND state = 'running'`,
      [now + delayMs, error, now, id, owner],
    );
    return this.get(id);
  }

  async deadLetter(id: string, owner: string, error: string): Promise<Job | undefined> {
    await this.store.query(
      `UPDATE jobs SET state = 'dead', lease_owner = NULL, lease_until = NULL, last_error = $1, updated_at = $2
       WHERE id = $3 AND lease_owner = $4 AND state = 'running'`,
      [error, this.now(), id, owner],
    );
    return this.get(id);
  }

  async pruneFinished(before: number): Promise<number> {
    const { rowCount } = await this.store.query(
      `DELETE FROM jobs WHERE state IN ('succeeded','dead') AND updated_at < $1`,
      [before],
    );
    return rowCount;
  }

  async list(filter: JobListFilter = {}): Promise<Job[]> {
    const where: string[] = [];
    const args: unknown[] = [];
    const arg = (value: unknown) => (args.push(value), `$${args.length}`);
    if (filter.state) where.push(`state = ${arg(filter.state)}`);
    if (filter.kind) where.push(`kind = ${arg(filter.kind)}`);
    if (filter.websiteId) where.push(`((payload::jsonb) ->> 'website_id') = ${arg(filter.websiteId)}`);
    if (filter.before)
      where.push(`(created_at, id) < (${arg(filter.before.createdAt)}::bigint, ${arg(filter.before.id)}::text)`);
    const limit = arg(filter.limit ?? 100);
    const { rows } = await this.store.query<PgJobRow>(
      `SELECT * FROM jobs ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY created_at DESC, id DESC LIMIT ${limit}`,
      args,
    );
    return rows.map(fromPg);
  }

  async depth(kind?: string): Promise<Record<JobState, number>> {
    const counts: Record<JobState, number> = { queued: 0, running: 0, succeeded: 0, dead: 0 };
    const { rows } = await this.store.query<{ state: JobState; n: string }>(
      'SELECT state, COUNT(*) AS n FROM jobs WHERE ($1::text IS NULL OR kind = $1) GROUP BY state',
      [kind ?? null],
    );
    for (const row of rows) counts[row.state] = Number(row.n);
    return counts;
  }

  /**
   * Enqueues the periodic kinds that are due, as enqueueDuePeriodicJobs does for control.sqlite,
   * once across the cluster: a kind's run is enqueued by the one scheduler whose UPDATE moved its
   * next_run_at (the others' UPDATE waits for that commit, then finds it not due), in the same
   * transaction, and its dedupe key keeps one instance queued. Returns the kinds enqueued here.
   */
  async enqueueDuePeriodic(periodic: readonly PeriodicKind[], now = this.now()): Promise<string[]> {
    const enqueued: Job[] = [];
    const kinds = await this.store.transaction(async (query) => {
      const names = periodic.map(({ job }) => job.kind);
      // Kinds no longer periodic lose their schedule and their still-queued instance (as on SQLite).
      const dropped = await query<{ kind: string }>(
        'DELETE FROM schedules WHERE NOT (kind = ANY($1::text[])) RETURNING kind',
        [names],
      );
      if (dropped.rows.length > 0)
        await query(`DELETE FROM jobs WHERE dedupe_key = ANY($1::text[]) AND state = 'queued'`, [
          dropped.rows.map((row) => scheduleKey(row.kind)),
        ]);
      const due: string[] = [];
      for (const { job, intervalSeconds } of periodic) {
        await query(
          'INSERT INTO schedules (kind, interval_seconds, next_run_at) VALUES ($1, $2, $3) ON CONFLICT (kind) DO NOTHING',
          [job.kind, intervalSeconds, now],
        );
        const moved = await query(
          'UPDATE schedules SET next_run_at = $1, interval_seconds = $2 WHERE kind = $3 AND next_run_at <= $4',
          [now + intervalSeconds * 1000, intervalSeconds, job.kind, now],
        );
        if (moved.rowCount === 0) continue;
        enqueued.push(
          await this.insert(query, job, parseJobPayload(job, {}), { dedupeKey: scheduleKey(job.kind) }, now),
        );
        due.push(job.kind);
      }
      return due;
    });
    for (const job of enqueued) for (const listener of this.enqueueListeners) listener(job);
    return kinds;
  }
}

async function bury(query: PostgresQuery, id: string, error: string, now: number): Promise<Job | undefined> {
  const { rows } = await query<PgJobRow>(
    `UPDATE jobs SET state = 'dead', lease_owner = NULL, lease_until = NULL, last_error = $1, updated_at = $2
     WHERE id = $3 RETURNING *`,
    [error, now, id],
  );
  return rows[0] ? fromPg(rows[0]) : undefined;
}

/** The dedupe key of a periodic kind's instance: the same on SQLite (job-scheduler.ts). */
export function scheduleKey(kind: string): string {
  return `schedule:${kind}`;
}
