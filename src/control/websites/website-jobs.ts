import { AppError } from '../../platform/errors/index.js';
import type { ListQuery } from '../../platform/http/index.js';
import type { Job, JobQueue, JobState } from '../../platform/jobs/index.js';
import type { JobDetailView, JobView } from './job-schemas.js';

/**
 * The website a job acts on: the website_id of its payload
 * (content.ingest, node.republish, webhook.deliver), else undefined.
 */
export function websiteIdOfJob(job: Pick<Job, 'payload'>): string | undefined {
  const payload = job.payload as { website_id?: unknown } | null;
  return typeof payload?.website_id === 'string' ? payload.website_id : undefined;
}

/** The list cursor of a job: its place in the newest-first order. */
export const jobCursorKey = (job: Pick<Job, 'createdAt' | 'id'>): string => `${job.createdAt}:${job.id}`;

function afterCursor(key: string | undefined): { createdAt: number; id: string } | undefined {
  if (key === undefined) return undefined;
  const match = /^(\d{1,16}):(.+)$/.exec(key);
  if (!match)
    throw new AppError(
      'validation.failed',
      'The cursor is not one this list gave out: pass next_cursor of the previous page unchanged.',
      { details: { fields: [{ path: 'cursor', message: 'not a cursor of this list' }] } },
    );
  return { createdAt: Number(match[1]), id: match[2]! };
}

/**
 * One page of a website's jobs, newest first, read with limit + 1 rows (pageOf keeps limit):
 * GET /v1/websites/:id/jobs and `nodectl jobs list --website`.
 */
export function listWebsiteJobs(
  queue: JobQueue,
  websiteId: string,
  filter: { state?: JobState; kind?: string },
  page: ListQuery,
): Job[] {
  return queue.list({ ...filter, websiteId, before: afterCursor(page.after), limit: page.limit + 1 });
}

/** One job of the website, or undefined when there is no such job or it acts on another website (or none). */
export function readWebsiteJob(queue: JobQueue, websiteId: string, jobId: string): Job | undefined {
  const job = queue.get(jobId);
  return job && websiteIdOfJob(job) === websiteId ? job : undefined;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** A job as the API shows it: no payload or lease (internal), times in RFC 3339. */
export function presentJob(job: Job): JobView {
  return {
    id: job.id,
    kind: job.kind,
    state: job.state,
    attempts: job.attempts,
    maxAttempts: job.maxAttempts,
    runAt: iso(job.runAt),
    lastError: job.lastError,
    itemErrorCount: job.itemErrors?.count ?? 0,
    createdAt: iso(job.createdAt),
    updatedAt: iso(job.updatedAt),
  };
}

/** One job as GET .../jobs/:jobId shows it: presentJob with the items it refused listed. */
export function presentJobDetail(job: Job): JobDetailView {
  return { ...presentJob(job), itemErrors: job.itemErrors?.listed ?? [] };
}
