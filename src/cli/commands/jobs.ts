import type { Command } from 'commander';
import { commandContext } from '../context.js';
import { formatTable } from '../output.js';
import { CliError, UsageError } from '../errors.js';

export function registerJobsCommands(program: Command): void {
  const jobs = program.command('jobs').description('inspect and run the durable job queue');
  jobs
    .command('list')
    .description('list recent jobs')
    .option('--state <state>', 'only jobs in this state (queued, running, succeeded, dead)')
    .option('--kind <kind>', 'only jobs of this kind')
    .option('--limit <n>', 'how many', '50')
    .action(async (opts: { state?: string; kind?: string; limit: string }, command: Command) => {
      const ctx = commandContext(command);
      const states = ['queued', 'running', 'succeeded', 'dead'];
      if (opts.state && !states.includes(opts.state)) throw new UsageError(`--state must be one of ${states.join(', ')}; got ${opts.state}`);
      const limit = Number(opts.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) throw new UsageError('--limit must be a whole number from 1 to 10000');
      const { withControlDb } = await import('./admin.js');
      const { JobQueue } = await import('../../jobs/queue.js');
      const rows = await withControlDb(ctx, (db) => new JobQueue(db).list({ state: opts.state as never, kind: opts.kind, limit }));
      ctx.out.result(rows, () =>
        formatTable(['ID', 'KIND', 'STATE', 'ATTEMPTS', 'RUN AT', 'LAST ERROR'], rows.map((j) => [j.id, j.kind, j.state, `${j.attempts}/${j.maxAttempts}`, new Date(j.runAt).toISOString(), j.lastError ?? ''])),
      );
    });
  jobs
    .command('wait')
    .description('wait until no job of one kind is queued or running (e.g. after a push, before a publish)')
    .option('--kind <kind>', 'job kind to wait for', 'content.ingest')
    .option('--timeout <seconds>', 'give up after this many seconds (exit 1)', '120')
    .action(async (opts: { kind: string; timeout: string }, command: Command) => {
      const ctx = commandContext(command);
      const timeoutSeconds = Number(opts.timeout);
      if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0 || timeoutSeconds > 86_400) throw new UsageError('--timeout must be a number of seconds from 1 to 86400');
      const { withControlDb } = await import('./admin.js');
      const { JobQueue } = await import('../../jobs/queue.js');
      const deadline = Date.now() + timeoutSeconds * 1000;
      const deadBefore = (await withControlDb(ctx, (db) => new JobQueue(db).depth(opts.kind))).dead;
      // Polls the control database read-only, so it is safe beside the daemon whose worker runs the jobs.
      for (;;) {
        const depth = await withControlDb(ctx, (db) => new JobQueue(db).depth(opts.kind));
        const pending = depth.queued + depth.running;
        if (pending === 0) {
          const newlyDead = depth.dead - deadBefore;
          if (newlyDead > 0) throw new CliError(`${newlyDead} ${opts.kind} job(s) failed for good while waiting; see \`nodectl jobs list --kind ${opts.kind} --state dead\``);
          ctx.out.result({ kind: opts.kind, ...depth }, () => `no ${opts.kind} job pending (${depth.succeeded} succeeded, ${depth.dead} dead)`);
          return;
        }
        if (Date.now() >= deadline) {
          throw new CliError(`${pending} ${opts.kind} job(s) still queued or running after ${timeoutSeconds} s; is \`nodectl serve\` running on this data directory? (or run \`nodectl jobs run ${opts.kind}\`)`);
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    });
  jobs
    .command('run')
    .description('run due jobs of one kind once and exit (for cron users); "all" runs every kind')
    .argument('<kind>', 'job kind, e.g. content.ingest, node.republish, maintenance.expire, or all')
    .action(async (kind: string, _opts, command: Command) => {
      const ctx = commandContext(command);
      const { JOBS } = await import('../../jobs/kinds/index.js');
      const kinds = JOBS.map((job) => job.kind).sort();
      if (kind !== 'all' && !kinds.includes(kind)) throw new UsageError(`unknown job kind ${kind}; valid kinds: all, ${kinds.join(', ')}`);
      const { createServices } = await import('../../app/services.js');
      const { JobWorker, laneConcurrency } = await import('../../jobs/worker.js');
      const { enqueueDuePeriodicJobs } = await import('../../jobs/scheduler.js');
      const services = createServices(ctx.config);
      try {
        enqueueDuePeriodicJobs(services.controlDb, services.jobs, JOBS, services.now());
        // drain() runs one job at a time whatever the lanes allow: a cron run stays predictable.
        const worker = new JobWorker(services.jobs, JOBS, services, { lanes: laneConcurrency(services.config.settings), pollMs: 1000 });
        const ran = await worker.drain(kind === 'all' ? undefined : [kind]);
        const failed = services.jobs.list({ state: 'dead', limit: 1000 }).length;
        ctx.out.result({ kind, ran, dead: failed }, () => `ran ${ran} job(s) of ${kind}`);
      } finally {
        services.close();
      }
    });
}
