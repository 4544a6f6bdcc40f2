import { useEffect, useState } from 'preact/hooks';
import { call, listPath } from './api.js';
import { ErrorMessage } from './error-message.js';
import { websitePath } from './router.js';
import type { WebsitePageProps } from './website-layout.js';
import { usePagedList } from './use-paged-list.js';

/** GET /v1/websites/:id/jobs (src/control/websites/job-schemas.ts JobSchema). */
interface Job {
  id: string;
  kind: string;
  state: 'queued' | 'running' | 'succeeded' | 'dead';
  attempts: number;
  maxAttempts: number;
  runAt: string;
  lastError: string | null;
  /** Items the job refused (content.ingest); GET .../jobs/:jobId lists them. */
  itemErrorCount: number;
  createdAt: string;
  updatedAt: string;
}

/** One refused item of GET /v1/websites/:id/jobs/:jobId (job-schemas.ts JobItemErrorSchema). */
interface ItemError {
  itemId: string;
  itemType: string;
  url: string | null;
  code: string;
  message: string;
}

interface JobDetail extends Job {
  itemErrors: ItemError[];
}

const KINDS: Record<string, string> = {
  'content.ingest': 'Content ingest',
  'node.republish': 'Publish (republish)',
  'webhook.deliver': 'Webhook delivery',
};

const STATES: Record<Job['state'], string> = {
  queued: 'Queued',
  running: 'Running',
  succeeded: 'Succeeded',
  dead: 'Failed',
};

/** A job still under way: the page reads it again every second while one is shown. */
const unfinished = (job: Job) => job.state === 'queued' || job.state === 'running';

const POLL_MS = 1000;

/** The website's ingest, publish and delivery jobs, newest first; the unfinished ones update live. */
export function WebsiteJobsPage({ website }: WebsitePageProps) {
  const [kind, setKind] = useState('');
  const [visible, setVisible] = useState(() => document.visibilityState === 'visible');
  const base = `/v1/websites/${encodeURIComponent(website.id)}/jobs`;
  const {
    items: jobs,
    setItems: setJobs,
    cursor,
    error,
    setError,
    load,
  } = usePagedList<Job>((after) => listPath(base, { limit: 25, cursor: after, kind: kind || undefined }));

  useEffect(() => {
    setJobs(undefined);
    void load();
  }, [website.id, kind]);

  useEffect(() => {
    const update = () => setVisible(document.visibilityState === 'visible');
    document.addEventListener('visibilitychange', update);
    return () => document.removeEventListener('visibilitychange', update);
  }, []);

  // Reads each unfinished job again a second after the last reading, while the tab is visible.
  const running = jobs?.filter(unfinished).map((job) => job.id) ?? [];
  useEffect(() => {
    if (!visible || running.length === 0) return;
    let stopped = false;
    const timer = setTimeout(async () => {
      try {
        const fresh = await Promise.all(running.map((id) => call<Job>('GET', `${base}/${encodeURIComponent(id)}`)));
        if (stopped) return;
        const byId = new Map(fresh.map((job) => [job.id, job]));
        setJobs((shown) => shown?.map((job) => byId.get(job.id) ?? job));
      } catch (failure) {
        if (!stopped) setError(failure);
      }
    }, POLL_MS);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [visible, jobs]);

  return (
    <>
      <h1 tabIndex={-1}>Ingest and jobs</h1>
      <div class="toolbar">
        <label>
          Kind
          <select value={kind} onChange={(e) => setKind(e.currentTarget.value)}>
            <option value="">All kinds</option>
            {Object.entries(KINDS).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <button type="button" class="secondary" onClick={() => void load()}>
          Refresh
        </button>
      </div>
      <p class="meta" role="status">
        {running.length > 0
          ? visible
            ? `${running.length} job(s) under way: updated every second.`
            : `${running.length} job(s) under way: updates pause while this tab is hidden.`
          : ''}
      </p>
      <ErrorMessage error={error} />
      {jobs === undefined && !error && <p aria-busy="true">Loading…</p>}
      {jobs && jobs.length === 0 && (
        <p class="empty">
          No jobs yet. Jobs appear when a connector pushes content (create one under{' '}
          <a href={websitePath(website.id, 'connectors')}>Connectors</a>, then run <code>nodectl push</code>) or a
          publish is queued.
        </p>
      )}
      {jobs && jobs.length > 0 && (
        <ul class="cards jobs" aria-label="Jobs, newest first">
          {jobs.map((job) => (
            <JobCard key={job.id} job={job} base={base} />
          ))}
        </ul>
      )}
      {cursor && (
        <button type="button" class="secondary" onClick={() => void load(cursor)}>
          Show more jobs
        </button>
      )}
    </>
  );
}

function JobCard({ job, base }: { job: Job; base: string }) {
  const label = KINDS[job.kind] ?? job.kind;
  return (
    <li aria-label={`${label} ${job.id}: ${STATES[job.state]}`}>
      <strong>
        {label} <span class={`state state-job-${job.state}`}>{STATES[job.state]}</span>
      </strong>
      <span class="meta">
        {job.id} · created {new Date(job.createdAt).toLocaleString()} · attempt {job.attempts} of {job.maxAttempts}
      </span>
      {unfinished(job) && (
        <progress
          max={job.maxAttempts}
          value={job.state === 'running' ? undefined : job.attempts}
          aria-label={`${label} ${job.id} under way`}
        />
      )}
      {job.state === 'queued' && job.attempts > 0 && (
        <span class="meta">Retrying at {new Date(job.runAt).toLocaleString()}.</span>
      )}
      {job.lastError && (
        <div class={job.state === 'dead' ? 'error' : 'meta'}>
          <p>
            {job.state === 'dead' ? 'Failed for good: ' : 'Last attempt failed: '}
            {job.lastError}
          </p>
          {job.state === 'dead' && job.kind === 'content.ingest' && (
            <p>
              The job stopped retrying: fix what the error names, then push the items again (unchanged items are
              skipped).
            </p>
          )}
        </div>
      )}
      {job.itemErrorCount > 0 && <ItemErrors job={job} label={label} base={base} />}
    </li>
  );
}

/**
 * The items a job refused, read (GET .../jobs/:jobId) when the user opens them, and again while
 * open if the count grows (a running job): each item, its code and what to fix.
 */
function ItemErrors({ job, label, base }: { job: Job; label: string; base: string }) {
  const [open, setOpen] = useState(false);
  const [detail, setDetail] = useState<JobDetail>();
  const [error, setError] = useState<unknown>();
  const count = job.itemErrorCount;

  useEffect(() => {
    if (!open || detail?.itemErrorCount === count) return;
    let stopped = false;
    setError(undefined);
    call<JobDetail>('GET', `${base}/${encodeURIComponent(job.id)}`).then(
      (fresh) => !stopped && setDetail(fresh),
      (failure: unknown) => !stopped && setError(failure),
    );
    return () => {
      stopped = true;
    };
  }, [open, count]);

  const listId = `item-errors-${job.id}`;
  const shown = detail?.itemErrors ?? [];
  const more = (detail?.itemErrorCount ?? count) - shown.length;
  return (
    <div class="item-errors">
      <p class={job.state === 'dead' ? 'error' : undefined}>
        {count === 1 ? '1 item was refused' : `${count} items were refused`}: not in the knowledge graph until pushed
        again.{' '}
        <button
          type="button"
          class="secondary"
          aria-expanded={open}
          aria-controls={listId}
          onClick={() => setOpen(!open)}
        >
          {open ? 'Hide the refused items' : 'Show the refused items'}
        </button>
      </p>
      {open && (
        <div id={listId}>
          <ErrorMessage error={error} />
          {!detail && !error && <p aria-busy="true">Loading…</p>}
          {detail && (
            <>
              <ul class="item-error-list" aria-label={`Items refused by ${label} ${job.id}`}>
                {shown.map((item, i) => (
                  <li key={`${i}:${item.itemType}:${item.itemId}`}>
                    <strong>
                      {item.itemType} <code>{item.itemId}</code>
                    </strong>{' '}
                    <code class="item-error-code">{item.code}</code>
                    {item.url && (
                      <span class="meta item-error-url">
                        <a href={item.url} rel="noreferrer noopener" target="_blank">
                          {item.url}
                        </a>
                      </span>
                    )}
                    <span class="item-error-message">{item.message}</span>
                  </li>
                ))}
              </ul>
              {more > 0 && (
                <p class="meta">
                  {more} more not shown: the job keeps the first {shown.length}; every refused item is counted.
                </p>
              )}
            </>
          )}
        </div>
      )}
    </div>
  );
}
