import type { z } from 'zod';
import { newUlid } from '../ids/index.js';
import { isPostgresDb, type Db } from '../storage/index.js';
import { JobPayloadError, parseJobPayload, type JobKind } from './payload.js';
import type { Awaitable } from './store.js';

export type JobState = 'queued' | 'running' | 'succeeded' | 'dead';

/** One item a job refused (content.ingest: docs/ingest.md "Item errors"), as the job's record keeps it. */
export interface JobItemError {
  /** The item's id as the connector sent it. */
  itemId: string;
  itemType: string;
  url: string | null;
  /** A stable code (item.body_invalid, item.extraction_failed, ...). */
  code: string;
  /** What went wrong and what to fix. */
  message: string;
}

/** The items a job refused: all of them counted, the first `listed` kept (JobQueueOptions.itemErrorsListed). */
export interface JobItemErrors {
  count: number;
  listed: JobItemError[];
}

/** Item errors a job keeps listed by default; the count goes on past them. */
export const ITEM_ERRORS_LISTED = 100;

export interface Job {
  id: string;
  kind: string;
  payload: unknown;
  state: JobState;
  attempts: number;
  maxAttempts: number;
  runAt: number;
  leaseOwner: string | null;
  leaseUntil: number | null;
  lastError: string | null;
  /** The items the job refused so far (across its attempts), or null when none. */
  itemErrors: JobItemErrors | null;
  createdAt: number;
  updatedAt: number;
}

export const JOB_STATES: readonly JobState[] = ['queued', 'running', 'succeeded', 'dead'];

export interface JobListFilter {
  state?: JobState;
  kind?: string;
  /** Only jobs whose payload names this website (website_id). */
  websiteId?: string;
  /** Only jobs listed after this one in the newest-first order. */
  before?: { createdAt: number; id: string };
  /** Default 100. */
  limit?: number;
}

export interface EnqueueOptions<P = unknown> {
  /** Earliest run time, ms since epoch. Default: now. */
  runAt?: number;
  /** Attempts before the job is dead-lettered. Default: the queue's maxAttempts. */
  maxAttempts?: number;
  /** While a job with this key is queued or running, enqueueing another returns the existing one. */
  dedupeKey?: string;
  /**
   * With dedupeKey: when the existing job is still queued (not yet running), its payload becomes
   * merge(its payload), so a coalesced job gathers what each request adds. Default: kept as is.
   * A queued payload that no longer parses is dead-lettered and a new job takes its place.
   */
  merge?: (queuedPayload: P) => P;
}

export interface JobQueueOptions {
  /** Default attempts before dead letter. Default 5. */
  maxAttempts?: number;
  /** Lease length in ms; a job whose lease lapses is claimable again. Default 60 s. */
  leaseMs?: number;
  /** First retry delay in ms; doubles per attempt. Default 1 s. */
  backoffBaseMs?: number;
  /** Longest retry delay in ms. Default 10 min. */
  backoffCapMs?: number;
  /** Item errors a job keeps listed (addItemErrors); past them only the count grows. Default ITEM_ERRORS_LISTED. */
  itemErrorsListed?: number;
  now?: () => number;
}

/** JobQueueOptions with every default filled in: both stores' queues behave alike from the same options. */
export type QueueSettings = Required<JobQueueOptions>;

export function queueSettings(options: JobQueueOptions = {}): QueueSettings {
  return {
    maxAttempts: options.maxAttempts ?? 5,
    leaseMs: options.leaseMs ?? 60_000,
    backoffBaseMs: options.backoffBaseMs ?? 1_000,
    backoffCapMs: options.backoffCapMs ?? 600_000,
    itemErrorsListed: Math.max(0, options.itemErrorsListed ?? ITEM_ERRORS_LISTED),
    now: options.now ?? Date.now,
  };
}

/** How long a job waits before its next attempt, after `attempts` failed ones: doubling, capped. */
export function retryDelayMs(settings: QueueSettings, attempts: number): number {
  return Math.min(settings.backoffCapMs, settings.backoffBaseMs * 2 ** (attempts - 1));
}

/**
 * What the job runtime needs of a queue. JobQueue answers at once on either control store (its
 * methods stay synchronous, so the worker's claim loop gains no await); a result may also be a
 * promise, for a queue behind an asynchronous driver, and a caller awaits every result.
 */
export interface JobStore {
  /** How long a claim's lease lasts, in ms. */
  readonly leaseMs: number;
  enqueue<S extends z.ZodType>(
    job: JobKind<S>,
    payload: z.input<S>,
    options?: EnqueueOptions<z.output<S>>,
  ): Awaitable<Job>;
  /** Calls `listener` with each job enqueued through this instance (not another daemon's); returns the unsubscribe. */
  onEnqueue(listener: (job: Job) => void): () => void;
  get(id: string): Awaitable<Job | undefined>;
  claim(owner: string, kinds?: readonly string[]): Awaitable<Job | undefined>;
  heartbeat(id: string, owner: string): Awaitable<boolean>;
  addItemErrors(id: string, errors: readonly JobItemError[]): Awaitable<void>;
  complete(id: string, owner: string): Awaitable<void>;
  fail(id: string, owner: string, error: string): Awaitable<Job | undefined>;
  postpone(id: string, owner: string, error: string, delayMs: number): Awaitable<Job | undefined>;
  deadLetter(id: string, owner: string, error: string): Awaitable<Job | undefined>;
  pruneFinished(before: number): Awaitable<number>;
  list(filter?: JobListFilter): Awaitable<Job[]>;
  depth(kind?: string): Awaitable<Record<JobState, number>>;
}

/** A row of the jobs table, as both stores read it (PostgreSQL's BIGINTs made numbers first). */
export interface JobRow {
  id: string;
  kind: string;
  payload: string;
  state: JobState;
  attempts: number;
  max_attempts: number;
  run_at: number;
  lease_owner: string | null;
  lease_until: number | null;
  last_error: string | null;
  item_errors: string | null;
  created_at: number;
  updated_at: number;
}

export function toJob(row: JobRow): Job {
  return {
    id: row.id,
    kind: row.kind,
    payload: JSON.parse(row.payload),
    state: row.state,
    attempts: row.attempts,
    maxAttempts: row.max_attempts,
    runAt: row.run_at,
    leaseOwner: row.lease_owner,
    leaseUntil: row.lease_until,
    lastError: row.last_error,
    itemErrors: row.item_errors === null ? null : (JSON.parse(row.item_errors) as JobItemErrors),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/**
 * A durable job queue in the control database. A claim is an atomic UPDATE that takes a lease,
 * so several workers (threads, processes) never run one job twice at once; a worker that dies
 * mid-run simply lets its lease lapse and the job is claimed again. Failures retry with
 * exponential backoff and are dead-lettered after maxAttempts.
 */
export class JobQueue implements JobStore {
  private readonly settings: QueueSettings;
  /** How long a claim's lease lasts, in ms; a running job is heartbeated well within it. */
  readonly leaseMs: number;
  private readonly now: () => number;
  private readonly enqueueListeners = new Set<(job: Job) => void>();
  /** Kinds claimed only for the websites whose lease `daemonId` holds (claimOwnedOnly). */
  private owned: { daemonId: string; kinds: readonly string[] } | undefined;

  constructor(
    private readonly db: Db,
    options: JobQueueOptions = {},
  ) {
    this.settings = queueSettings(options);
    this.leaseMs = this.settings.leaseMs;
    this.now = this.settings.now;
  }

  /**
   * Enqueues a job of one kind. The payload is parsed with the kind's schema first (a bad one
   * throws JobPayloadError and nothing is stored), so every stored payload parsed once.
   */
  enqueue<S extends z.ZodType>(job: JobKind<S>, payload: z.input<S>, options: EnqueueOptions<z.output<S>> = {}): Job {
    const parsed = parseJobPayload(job, payload);
    const now = this.now();
    const id = `job_${newUlid(now)}`;
    const insert = this.db.transaction(() => {
      if (options.dedupeKey) {
        const existing = this.db
          .prepare(`SELECT * FROM jobs WHERE dedupe_key = ? AND state IN ('queued','running')`)
          .get(options.dedupeKey) as JobRow | undefined;
        if (existing && existing.state === 'queued' && options.merge) {
          const queued = job.payload.safeParse(JSON.parse(existing.payload));
          if (queued.success) {
            const merged = parseJobPayload(job, options.merge(queued.data));
            this.db
              .prepare('UPDATE jobs SET payload = ?, updated_at = ? WHERE id = ?')
              .run(JSON.stringify(merged ?? null), now, existing.id);
            return this.get(existing.id)!;
          }
          this.bury(existing.id, new JobPayloadError(job.kind, queued.error.issues).message, now);
        } else if (existing) {
          return toJob(existing);
        }
      }
      this.db
        .prepare(
          `INSERT INTO jobs (id, kind, payload, state, attempts, max_attempts, run_at, dedupe_key, created_at, updated_at) VALUES (?, ?, ?, 'queued', 0, ?, ?, ?, ?, ?)`,
        )
        .run(
          id,
          job.kind,
          JSON.stringify(parsed ?? null),
          options.maxAttempts ?? this.settings.maxAttempts,
          options.runAt ?? now,
          options.dedupeKey ?? null,
          now,
          now,
        );
      return this.get(id)!;
    });
    const enqueued = insert.immediate();
    for (const listener of this.enqueueListeners) listener(enqueued);
    return enqueued;
  }

  /**
   * Calls `listener` with each job enqueued through this queue (new, or a
   * queued one merged into), after its commit; returns the unsubscribe.
   */
  onEnqueue(listener: (job: Job) => void): () => void {
    this.enqueueListeners.add(listener);
    return () => void this.enqueueListeners.delete(listener);
  }

  get(id: string): Job | undefined {
    const row = this.db.prepare('SELECT * FROM jobs WHERE id = ?').get(id) as JobRow | undefined;
    return row ? toJob(row) : undefined;
  }

  /**
   * Claims the next due job (optionally of given kinds): a queued job whose run time has come,
   * or a running job whose lease lapsed. Returns undefined when nothing is due. One statement,
   * atomic on either store; on PostgreSQL `FOR UPDATE SKIP LOCKED` lets daemons claim side by
   * side, each skipping the rows another is taking. The claim commits without an fsync: a claim a
   * power cut takes leaves the job queued (or its lease lapses), and the job runs again, as after
   * any crash mid-run; its completion or failure is synced.
   */
  claim(owner: string, kinds?: readonly string[]): Job | undefined {
    const now = this.now();
    const kindFilter = kinds && kinds.length > 0 ? `AND kind IN (${kinds.map(() => '?').join(',')})` : '';
    const owned = this.owned;
    const ownedFilter = owned
      ? `AND (kind NOT IN (${owned.kinds.map(() => '?').join(',')}) OR json_extract(payload, '$.website_id') IN
           (SELECT website_id FROM website_leases WHERE owner = ? AND expires_at > ?))`
      : '';
    const ownedArgs = owned ? [...owned.kinds, owned.daemonId, now] : [];
    const skipLocked = isPostgresDb(this.db) ? 'FOR UPDATE SKIP LOCKED' : '';
    const row = withoutFsync(this.db, () =>
      this.db
        .prepare(
          `UPDATE jobs SET state = 'running', attempts = attempts + 1, lease_owner = ?, lease_until = ?, updated_at = ?
           WHERE id = (SELECT id FROM jobs WHERE ((state = 'queued' AND run_at <= ?) OR (state = 'running' AND lease_until < ?))
             ${kindFilter} ${ownedFilter} ORDER BY run_at, id LIMIT 1 ${skipLocked})
           RETURNING *`,
        )
        .get(owner, now + this.leaseMs, now, now, now, ...(kinds ?? []), ...ownedArgs),
    ) as JobRow | undefined;
    return row ? toJob(row) : undefined;
  }

  /**
   * From now on, jobs of `kinds` (those that need a website's graph) are claimed only for the
   * websites whose lease `daemonId` holds (website_leases): with several daemons, the graph's writer
   * runs them (src/ingest/ownership). The others are left for their owner.
   */
  claimOwnedOnly(daemonId: string, kinds: readonly string[]): void {
    this.owned = kinds.length > 0 ? { daemonId, kinds } : undefined;
  }

  /** Extends a running job's lease (for long jobs). Returns false if the lease was lost. */
  heartbeat(id: string, owner: string): boolean {
    const now = this.now();
    return (
      this.db
        .prepare(
          `UPDATE jobs SET lease_until = ?, updated_at = ? WHERE id = ? AND lease_owner = ? AND state = 'running'`,
        )
        .run(now + this.leaseMs, now, id, owner).changes === 1
    );
  }

  /**
   * Adds items the job refused to its record: all counted, listed only while the list is under
   * itemErrorsListed, so a run refusing a million items stores a bounded row. Committed without
   * an fsync: the job's completion or failure, right after, syncs it.
   */
  addItemErrors(id: string, errors: readonly JobItemError[]): void {
    if (errors.length === 0) return;
    const add = this.db.transaction(() => {
      const row = this.db.prepare('SELECT item_errors FROM jobs WHERE id = ?').get(id) as
        { item_errors: string | null } | undefined;
      if (!row) return;
      const kept: JobItemErrors = row.item_errors === null ? { count: 0, listed: [] } : JSON.parse(row.item_errors);
      kept.count += errors.length;
      kept.listed.push(...errors.slice(0, Math.max(0, this.settings.itemErrorsListed - kept.listed.length)));
      this.db.prepare('UPDATE jobs SET item_errors = ? WHERE id = ?').run(JSON.stringify(kept), id);
    });
    withoutFsync(this.db, () => add.immediate());
  }

  complete(id: string, owner: string): void {
    const now = this.now();
    this.db
      .prepare(
        `UPDATE jobs SET state = 'succeeded', lease_owner = NULL, lease_until = NULL, last_error = NULL, updated_at = ? WHERE id = ? AND lease_owner = ?`,
      )
      .run(now, id, owner);
  }

  /** Records a failure: retried after an exponential backoff, or dead-lettered when out of attempts. */
  fail(id: string, owner: string, error: string): Job | undefined {
    const now = this.now();
    const job = this.get(id);
    if (!job || job.leaseOwner !== owner) return job;
    if (job.attempts >= job.maxAttempts) {
      this.bury(id, error, now);
    } else {
      const delay = retryDelayMs(this.settings, job.attempts);
      this.db
        .prepare(
          `UPDATE jobs SET state = 'queued', run_at = ?, lease_owner = NULL, lease_until = NULL, last_error = ?, updated_at = ? WHERE id = ?`,
        )
        .run(now + delay, error, now, id);
    }
    return this.get(id);
  }

  /**
   * Puts a claimed job back in the queue to run after `delayMs`, without spending the attempt its
   * claim counted: for a failure that is not the job's (a full or failing disk), which must not
   * dead-letter it however long the fault lasts.
   */
  postpone(id: string, owner: string, error: string, delayMs: number): Job | undefined {
    const now = this.now();
    this.db
      .prepare(
        `UPDATE jobs SET state = 'queued', attempts = CASE WHEN attempts > 0 THEN attempts - 1 ELSE 0 END, run_at = ?, lease_owner = NULL, lease_until = NULL, last_error = ?, updated_at = ? WHERE id = ? AND lease_owner = ? AND state = 'running'`,
      )
      .run(now + delayMs, error, now, id, owner);
    return this.get(id);
  }

  /**
   * Dead-letters a claimed job at once, whatever its attempts left: for a failure no retry can
   * mend (its stored payload no longer matches its kind's schema).
   */
  deadLetter(id: string, owner: string, error: string): Job | undefined {
    const job = this.get(id);
    if (job && job.leaseOwner === owner && job.state === 'running') this.bury(id, error, this.now());
    return this.get(id);
  }

  private bury(id: string, error: string, now: number): void {
    this.db
      .prepare(
        `UPDATE jobs SET state = 'dead', lease_owner = NULL, lease_until = NULL, last_error = ?, updated_at = ? WHERE id = ?`,
      )
      .run(error, now, id);
  }

  /** Deletes succeeded and dead jobs that finished before `before` (ms); queued and running jobs stay. */
  pruneFinished(before: number): number {
    return this.db.prepare(`DELETE FROM jobs WHERE state IN ('succeeded','dead') AND updated_at < ?`).run(before)
      .changes;
  }

  /** Jobs newest first (created_at, then id), filtered; `before` continues a listing after its last job. */
  list(filter: JobListFilter = {}): Job[] {
    const where: string[] = [];
    const args: unknown[] = [];
    if (filter.state) (where.push('state = ?'), args.push(filter.state));
    if (filter.kind) (where.push('kind = ?'), args.push(filter.kind));
    // The kinds that act on one website name it in their payload (content.ingest, node.republish, webhook.deliver).
    if (filter.websiteId) (where.push(`json_extract(payload, '$.website_id') = ?`), args.push(filter.websiteId));
    if (filter.before) (where.push('(created_at, id) < (?, ?)'), args.push(filter.before.createdAt, filter.before.id));
    const sql = `SELECT * FROM jobs ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY created_at DESC, id DESC LIMIT ?`;
    return (this.db.prepare(sql).all(...args, filter.limit ?? 100) as JobRow[]).map(toJob);
  }

  /** Number of jobs per state (of one kind when given), for /metrics and `nodectl jobs wait`. */
  depth(kind?: string): Record<JobState, number> {
    const counts: Record<JobState, number> = { queued: 0, running: 0, succeeded: 0, dead: 0 };
    const rows =
      kind === undefined
        ? this.db.prepare('SELECT state, COUNT(*) AS n FROM jobs GROUP BY state').all()
        : this.db.prepare('SELECT state, COUNT(*) AS n FROM jobs WHERE kind = ? GROUP BY state').all(kind);
    for (const row of rows as Array<{ state: JobState; n: number }>) counts[row.state] = row.n;
    return counts;
  }
}

/**
 * Runs `write` with synchronous=NORMAL (no fsync at commit), unless a transaction is already open
 * (SQLite cannot change the level inside one): for job bookkeeping a power cut may take, because
 * the job then runs again (a claim) or a later synced commit covers it (a job's event, synced by
 * its completion).
 */
export function withoutFsync<T>(db: Db, write: () => T): T {
  if (db.inTransaction) return write();
  const level = db.pragma('synchronous', { simple: true }) as number;
  db.pragma('synchronous = NORMAL');
  try {
    return write();
  } finally {
    db.pragma(`synchronous = ${level}`);
  }
}
