import type { Command } from 'commander';
import type { Job, JobDetail, Page } from '../../sdk/api/index.js';
import type { JobState } from '../../platform/jobs/index.js';
import { addApiOptions, apiRequested, type ApiFlags, type ApiConnection } from '../api-connection.js';
import { commandContext, type CommandContext } from '../context.js';
import { formatTable } from '../output.js';
import { CliError, UsageError } from '../errors.js';

const STATES: readonly JobState[] = ['queued', 'running', 'succeeded', 'dead'];

/** What the jobs table reads of a job: the queue's row (times in ms) or the API's view (RFC 3339). */
interface JobRow {
  id: string;
  kind: string;
  state: string;
  attempts: number;
  maxAttempts: number;
  runAt: number | string;
  lastError: string | null;
}

const formatJobs = (rows: readonly JobRow[]) =>
  formatTable(
    ['ID', 'KIND', 'STATE', 'ATTEMPTS', 'RUN AT', 'LAST ERROR'],
    rows.map((j) => [
      j.id,
      j.kind,
      j.state,
      `${j.attempts}/${j.maxAttempts}`,
      new Date(j.runAt).toISOString(),
      j.lastError ?? '',
    ]),
  );

/** `jobs get`: the job's row, then the items it refused, one a line, and how many are not listed. */
function formatJobDetail(job: JobDetail): string {
  const table = formatJobs([job]);
  if (job.itemErrorCount === 0) return table;
  const lines = formatTable(
    ['ITEM', 'CODE', 'MESSAGE'],
    job.itemErrors.map((e) => [`${e.itemType}:${e.itemId}`, e.code, e.message]),
  );
  const more = job.itemErrorCount - job.itemErrors.length;
  return `${table}\n\n${job.itemErrorCount} item(s) refused:\n${lines}${more > 0 ? `\n${more} more not shown` : ''}`;
}

function parseLimit(value: string): number {
  const limit = Number(value);
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000)
    throw new UsageError('--limit must be a whole number from 1 to 10000');
  return limit;
}

/** Over HTTP: --website, else NODECTL_WEBSITE, else the project file's website (nodectl init). */
async function requireWebsite(opts: { website?: string }): Promise<string> {
  const { projectDefaults } = await import('../project-file.js');
  const website = projectDefaults({ website: opts.website }).website;
  if (!website)
    throw new UsageError(
      '--website <id> is required over HTTP: the API lists the jobs of one website (or NODECTL_WEBSITE, or website in nodectl.json: nodectl init)',
    );
  return website;
}

/** The first `limit` jobs of the website over HTTP, newest first, page after page. */
async function listOverHttp(
  api: ApiConnection,
  websiteId: string,
  filter: { state?: JobState; kind?: string },
  limit: number,
): Promise<Job[]> {
  const { reportApiFailure } = await import('../api-connection.js');
  const jobs: Job[] = [];
  let cursor: string | undefined;
  do {
    const page: Page<Job> = await api.client.jobs
      .list(websiteId, { ...filter, limit: Math.min(100, limit - jobs.length), cursor })
      .catch(reportApiFailure);
    jobs.push(...page.items);
    cursor = page.next_cursor ?? undefined;
  } while (cursor !== undefined && jobs.length < limit);
  return jobs;
}

const pendingLine = (kind: string, depth: Record<JobState, number>) =>
  `no ${kind} job pending (${depth.succeeded} succeeded, ${depth.dead} dead)`;
const stillPending = (pending: number, kind: string, seconds: number, hint: string) =>
  new CliError(`${pending} ${kind} job(s) still queued or running after ${seconds} s; ${hint}`);

/**
 * `jobs wait` over HTTP: polls the website's queued and running jobs of the kind; once none is
 * left, the jobs seen pending that ended dead fail the wait, as the local form does.
 */
async function waitOverHttp(
  ctx: CommandContext,
  api: ApiConnection,
  websiteId: string,
  kind: string,
  timeoutSeconds: number,
): Promise<void> {
  const { reportApiFailure } = await import('../api-connection.js');
  const deadline = Date.now() + timeoutSeconds * 1000;
  const seen = new Set<string>();
  for (;;) {
    const pending = [
      ...(await listOverHttp(api, websiteId, { kind, state: 'queued' }, 10_000)),
      ...(await listOverHttp(api, websiteId, { kind, state: 'running' }, 10_000)),
    ];
    for (const job of pending) seen.add(job.id);
    if (pending.length === 0) {
      const ended = await Promise.all(
        [...seen].map((id) => api.client.jobs.get(websiteId, id).catch(reportApiFailure)),
      );
      const newlyDead = ended.filter((job) => job.state === 'dead').length;
      if (newlyDead > 0)
        throw new CliError(
          `${newlyDead} ${kind} job(s) of ${websiteId} failed for good while waiting; see \`nodectl jobs list --website ${websiteId} --kind ${kind} --state dead\``,
        );
      const [succeeded, dead] = await Promise.all([
        listOverHttp(api, websiteId, { kind, state: 'succeeded' }, 10_000),
        listOverHttp(api, websiteId, { kind, state: 'dead' }, 10_000),
      ]);
      const depth = { queued: 0, running: 0, succeeded: succeeded.length, dead: dead.length };
      return ctx.out.result({ kind, ...depth }, () => pendingLine(kind, depth));
    }
    if (Date.now() >= deadline)
      throw stillPending(pending.length, kind, timeoutSeconds, `is the daemon at ${api.url} running its worker?`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

export function registerJobsCommands(program: Command): void {
  const jobs = program
    .command('jobs')
    .description('inspect and run the durable job queue (list, get and wait also over HTTP, for one website)');
  addApiOptions(jobs.command('list').description('list recent jobs, newest first'))
    .option('--website <id>', "only this website's jobs (required over HTTP)")
    .option('--state <state>', 'only jobs in this state (queued, running, succeeded, dead)')
    .option('--kind <kind>', 'only jobs of this kind')
    .option('--limit <n>', 'how many', '50')
    .action(
      async (opts: ApiFlags & { website?: string; state?: string; kind?: string; limit: string }, command: Command) => {
        const ctx = commandContext(command);
        if (opts.state && !STATES.includes(opts.state as JobState))
          throw new UsageError(`--state must be one of ${STATES.join(', ')}; got ${opts.state}`);
        const limit = parseLimit(opts.limit);
        const filter = { state: opts.state as JobState | undefined, kind: opts.kind };
        if (apiRequested(opts)) {
          const websiteId = await requireWebsite(opts);
          const { connectApi } = await import('../api-connection.js');
          const rows = await listOverHttp(await connectApi(opts), websiteId, filter, limit);
          return ctx.out.result(rows, () => formatJobs(rows));
        }
        const { withControlDb } = await import('./admin-command.js');
        const { JobQueue } = await import('../../platform/jobs/index.js');
        const rows = await withControlDb(ctx, (db) =>
          new JobQueue(db).list({ ...filter, websiteId: opts.website, limit }),
        );
        ctx.out.result(rows, () => formatJobs(rows));
      },
    );
  addApiOptions(jobs.command('get').description('show one job').argument('<jobId>', 'the job id (job_...)'))
    .option('--website <id>', 'the website the job acts on (required over HTTP)')
    .action(async (jobId: string, opts: ApiFlags & { website?: string }, command: Command) => {
      const ctx = commandContext(command);
      const { presentJobDetail, readWebsiteJob } = await import('../../control/websites/index.js');
      let job: JobDetail;
      if (apiRequested(opts)) {
        const websiteId = await requireWebsite(opts);
        const { connectApi, reportApiFailure } = await import('../api-connection.js');
        job = await (await connectApi(opts)).client.jobs.get(websiteId, jobId).catch(reportApiFailure);
      } else {
        const { withControlDb } = await import('./admin-command.js');
        const { JobQueue } = await import('../../platform/jobs/index.js');
        const found = await withControlDb(ctx, (db) =>
          opts.website === undefined
            ? new JobQueue(db).get(jobId)
            : readWebsiteJob(new JobQueue(db), opts.website, jobId),
        );
        if (!found)
          throw new CliError(
            `no job ${jobId}${opts.website ? ` of website ${opts.website}` : ''} in this data directory (nodectl jobs list shows them)`,
            1,
            'job.not_found',
          );
        job = presentJobDetail(found);
      }
      const shown = job;
      ctx.out.result(shown, () => formatJobDetail(shown));
    });
  addApiOptions(
    jobs
      .command('wait')
      .description('wait until no job of one kind is queued or running (e.g. after a push, before a publish)'),
  )
    .option('--website <id>', "only this website's jobs (required over HTTP)")
    .option('--kind <kind>', 'job kind to wait for', 'content.ingest')
    .option('--timeout <seconds>', 'give up after this many seconds (exit 1)', '120')
    .action(async (opts: ApiFlags & { website?: string; kind: string; timeout: string }, command: Command) => {
      const ctx = commandContext(command);
      const timeoutSeconds = Number(opts.timeout);
      if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0 || timeoutSeconds > 86_400)
        throw new UsageError('--timeout must be a number of seconds from 1 to 86400');
      if (apiRequested(opts)) {
        const websiteId = await requireWebsite(opts);
        const { connectApi } = await import('../api-connection.js');
        return waitOverHttp(ctx, await connectApi(opts), websiteId, opts.kind, timeoutSeconds);
      }
      if (opts.website !== undefined)
        throw new UsageError(
          '--website is for jobs wait over HTTP (--url); locally it waits for every job of the kind',
        );
      const { withControlDb } = await import('./admin-command.js');
      const { JobQueue } = await import('../../platform/jobs/index.js');
      const deadline = Date.now() + timeoutSeconds * 1000;
      const deadBefore = (await withControlDb(ctx, (db) => new JobQueue(db).depth(opts.kind))).dead;
      // Polls the control database read-only, so it is safe beside the daemon whose worker runs the jobs.
      for (;;) {
        const depth = await withControlDb(ctx, (db) => new JobQueue(db).depth(opts.kind));
        const pending = depth.queued + depth.running;
        if (pending === 0) {
          const newlyDead = depth.dead - deadBefore;
          if (newlyDead > 0)
            throw new CliError(
              `${newlyDead} ${opts.kind} job(s) failed for good while waiting; see \`nodectl jobs list --kind ${opts.kind} --state dead\``,
            );
          ctx.out.result({ kind: opts.kind, ...depth }, () => pendingLine(opts.kind, depth));
          return;
        }
        if (Date.now() >= deadline)
          throw stillPending(
            pending,
            opts.kind,
            timeoutSeconds,
            `is \`nodectl serve\` running on this data directory? (or run \`nodectl jobs run ${opts.kind}\`)`,
          );
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    });
  jobs
    .command('run')
    .description('run due jobs of one kind once and exit (for cron users); "all" runs every kind')
    .argument('<kind>', 'job kind, e.g. content.ingest, node.republish, maintenance.expire, or all')
    .action(async (kind: string, _opts, command: Command) => {
      const ctx = commandContext(command);
      const { JOBS, createServices } = await import('../../daemon/index.js');
      const kinds = JOBS.map((job) => job.kind).sort();
      if (kind !== 'all' && !kinds.includes(kind))
        throw new UsageError(`unknown job kind ${kind}; valid kinds: all, ${kinds.join(', ')}`);
      const { JobWorker, enqueueDuePeriodicJobs, laneConcurrency } =
        await import('../../platform/job-runtime/index.js');
      const services = createServices(ctx.config);
      try {
        enqueueDuePeriodicJobs(services.controlDb, services.jobs, JOBS, services.now());
        // drain() runs one job at a time whatever the lanes allow: a cron run stays predictable.
        const worker = new JobWorker(services.jobs, JOBS, services, {
          lanes: laneConcurrency(services.config.settings),
          pollMs: 1000,
        });
        const ran = await worker.drain(kind === 'all' ? undefined : [kind]);
        const failed = services.jobs.list({ state: 'dead', limit: 1000 }).length;
        ctx.out.result({ kind, ran, dead: failed }, () => `ran ${ran} job(s) of ${kind}`);
      } finally {
        services.close();
      }
    });
}
