import type { FastifyInstance } from 'fastify';
import {
  type ResolvedConfig,
  isPostgresUrl,
  nodeBaseUrl,
  publicBaseUrl,
  redactUrlPassword,
} from '../platform/config/index.js';
import type { AppServices } from '../platform/app/index.js';
import { PostgresSchemaTooNewError, type PostgresStore } from '../platform/storage/index.js';
import { JobWorker, laneConcurrency, startScheduler } from '../platform/job-runtime/index.js';
import { JOBS } from './job-definitions.js';
import { REDACTED_PATHS } from '../platform/http/index.js';
import { releaseFreedMemory } from '../platform/memory/index.js';
import { createPrettyLogStream, prettyLogsWanted } from '../platform/log/index.js';
import { buildApp } from './app.js';
import { createServices } from './create-services.js';
import { keepRunningOnStorageFaults } from './storage-fault-guard.js';
import { endIdleIngestThreads, sharedExtractionPool, sharedGraphWriter } from '../ingest/graph/index.js';
import { GRAPH_JOB_KINDS } from '../ingest/ownership/index.js';
import { createGraphOwnership } from './graph-ownership.js';

export interface RunningDaemon {
  app: FastifyInstance;
  services: AppServices;
  url: string;
  /** Stops accepting, finishes in-flight requests and jobs, closes the databases. */
  shutdown(reason: string): Promise<void>;
}

export class ListenError extends Error {}

/** The address the other daemons reach this one at when it listens on every interface: its loopback (advertiseUrl says better). */
function loopbackFor(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * The warm start of content.ingest's threads (docs/graph.md "A warm start"), in the background:
 * real batches go first. The extraction workers extract made-up pages, so that the extractor is
 * optimised before the first batch; the graph writer thread is started, so that its modules are
 * loaded.
 */
function warmStart(app: FastifyInstance, pages: number): void {
  const pool = pages > 0 ? sharedExtractionPool() : undefined;
  if (pool === undefined) return;
  sharedGraphWriter()?.start();
  const started = performance.now();
  void pool
    .warmUp(pages)
    .then(() =>
      app.log.info(
        { pages, ms: Math.round(performance.now() - started), workers: pool.running },
        'extraction workers warmed up',
      ),
    );
}

/** Why a PostgreSQL control store cannot be used at start, saying what to check. */
function controlStoreError(displayUrl: string, error: unknown): ControlStoreError {
  if (error instanceof PostgresSchemaTooNewError) return new ControlStoreError(error.message, { cause: error });
  return new ControlStoreError(
    `Cannot use the control store ${displayUrl}: ${(error as Error).message}. Check controlStore (NODECTL_CONTROL_STORE): the server's address, the database, the user and its password.`,
    { cause: error },
  );
}

/** Connects to the PostgreSQL control store and migrates it, or fails the start saying what to check. */
async function reachControlStore(store: PostgresStore): Promise<void> {
  try {
    await store.ready();
  } catch (error) {
    throw controlStoreError(store.displayUrl, error);
  }
}

/** The services, or a start that fails saying which setting to check when the control store cannot be opened. */
function createDaemonServices(config: ResolvedConfig, options: Parameters<typeof createServices>[1]): AppServices {
  try {
    return createServices(config, options);
  } catch (error) {
    const store = config.settings.controlStore;
    if (store !== undefined && isPostgresUrl(store)) throw controlStoreError(redactUrlPassword(store), error);
    throw error;
  }
}

/** The PostgreSQL control store could not be reached or migrated at start. */
export class ControlStoreError extends Error {}

/** Starts `nodectl serve`: HTTP API, job worker and scheduler over one data directory. */
export async function startDaemon(config: ResolvedConfig): Promise<RunningDaemon> {
  // pino writes JSON lines to stdout; on a terminal a person reads them, so they are formatted
  // (colour unless NO_COLOR). Piped to a file or a collector they stay JSON.
  const { pretty, color } = prettyLogsWanted(process.stdout);
  const app0Logger = {
    level: config.settings.logLevel,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    ...(pretty ? { stream: createPrettyLogStream(process.stdout, { color }) } : {}),
  };
  // The services log through Fastify's logger once the app exists.
  let app: FastifyInstance | undefined;
  const local = createDaemonServices(config, {
    logger: {
      info: (...a: unknown[]) => log('info', a),
      warn: (...a: unknown[]) => log('warn', a),
      error: (...a: unknown[]) => log('error', a),
      debug: (...a: unknown[]) => log('debug', a),
    } as AppServices['logger'],
  });
  function log(level: 'info' | 'warn' | 'error' | 'debug', args: unknown[]): void {
    (app?.log[level] as ((...x: unknown[]) => void) | undefined)?.apply(app?.log, args);
  }
  const { keepSparePublishWorker, closeSparePublishWorker, makeRoomBeforeEachPublish, removeDeadWorkDirs } =
    await import('../output/publish/index.js');
  let services = local;
  let cluster: Awaited<ReturnType<typeof createGraphOwnership>>;
  let listening = '';
  try {
    if (local.postgres) await reachControlStore(local.postgres);
    cluster = await createGraphOwnership(local, config.settings, () => listening);
    if (cluster)
      services = {
        ...local,
        ownership: cluster.ownership,
        nodes: { ...local.nodes, refreshTrust: cluster.refreshTrust },
      };
    app = await buildApp(services, {
      logger: app0Logger,
      ...(cluster ? { graphOwnership: cluster.ownership } : {}),
    });
    // No publish runs in this process yet: every work folder naming a dead process (or this pid) is a leftover.
    const removed = removeDeadWorkDirs(config.settings.dataDir, { nowMs: Date.now(), ownPidIsDead: true });
    if (removed > 0) app.log.info({ folders: removed }, 'removed the work folders of publishes that died');
    await app.listen({ host: config.settings.host, port: config.settings.port });
  } catch (error) {
    await app?.close().catch(() => {});
    services.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE')
      throw new ListenError(
        `Cannot listen on ${config.settings.host}:${config.settings.port}: the address is already in use (is another nodectl serve running?). Pick another port with --port.`,
      );
    if (code === 'EACCES' || code === 'EADDRNOTAVAIL')
      throw new ListenError(
        `Cannot listen on ${config.settings.host}:${config.settings.port}: ${(error as Error).message}.`,
      );
    throw error;
  }
  const uninstallGuard = keepRunningOnStorageFaults(app.log);
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.settings.port;
  listening = `http://${loopbackFor(config.settings.host)}:${port}`;
  if (cluster) {
    services.jobs.claimOwnedOnly(cluster.ownership.daemonId, GRAPH_JOB_KINDS);
    cluster.ownership.start();
  }
  const jobs = cluster ? cluster.jobs(JOBS) : JOBS;
  const worker = new JobWorker(services.jobs, jobs, services, {
    lanes: laneConcurrency(config.settings),
    pollMs: config.settings.jobPollMs,
    onOutcome: (job, outcome) => services!.metrics.jobOutcomes.inc({ kind: job.kind, outcome }),
  });
  worker.start();
  const stopScheduler = startScheduler(services.controlDb, services.jobs, jobs);
  keepSparePublishWorker();
  makeRoomBeforeEachPublish(async () => {
    const ended = await endIdleIngestThreads();
    if (ended.extractionWorkers > 0 || ended.graphWriter) {
      // What they freed (the writer's page cache above all) stays resident with glibc until given back.
      const released = await releaseFreedMemory();
      const rssMb = released && {
        before: megabytes(released.rssBeforeBytes),
        after: megabytes(released.rssAfterBytes),
      };
      app.log.info(
        { ...ended, ...(rssMb && { rssMb }) },
        'idle ingest threads ended before a publish, to give the compile their memory',
      );
    }
  });
  warmStart(app, config.settings.extractionWarmUpPages);
  const url = publicBaseUrl(config.settings, port);
  app.log.info(
    { url, nodeBaseUrl: nodeBaseUrl(config.settings, port), dataDir: config.settings.dataDir },
    'nodectl serve listening',
  );
  // Which store holds what, once (docs/scaling.md): the control tables follow controlStore; graphs stay in the data directory.
  app.log.info(
    { controlStore: services.postgres?.displayUrl ?? services.layout.controlDb, dataDir: config.settings.dataDir },
    services.postgres
      ? 'control store: every control table in PostgreSQL; graphs and scratch in the data directory'
      : 'control store: control.sqlite',
  );
  if (cluster)
    app.log.info(
      { daemon: cluster.ownership.daemonId, address: config.settings.advertiseUrl ?? listening },
      "graph ownership: one writer per website's graph among the daemons sharing this store; snapshots in the bucket",
    );

  let shuttingDown: Promise<void> | undefined;
  const runningApp = app;
  const runningServices = services;
  return {
    app: runningApp,
    services: runningServices,
    url,
    shutdown(reason) {
      shuttingDown ??= (async () => {
        runningApp.log.info({ reason }, 'shutting down: no new requests, finishing in-flight work');
        stopScheduler();
        const deadline = setTimeout(() => {
          runningApp.log.warn(
            { timeoutMs: config.settings.shutdownTimeoutMs },
            'shutdown timeout: closing remaining connections',
          );
          runningApp.server.closeAllConnections();
        }, config.settings.shutdownTimeoutMs);
        deadline.unref();
        await Promise.all([runningApp.close(), worker.stop()]);
        // After the last job: its snapshot is taken, then the leases go so that others take over at once.
        await cluster?.close();
        await closeSparePublishWorker();
        makeRoomBeforeEachPublish(undefined);
        clearTimeout(deadline);
        runningServices.close();
        await runningServices.postgres?.close(); // the last rate-limit counts reach it first
        uninstallGuard();
      })();
      return shuttingDown;
    },
  };
}

function megabytes(bytes: number): number {
  return Math.round(bytes / 1_048_576);
}
