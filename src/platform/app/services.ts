import type { ResolvedConfig } from '../config/config.js';
import { createBufferedRateLimitStore, type BufferedRateLimitStore } from '../http/rate-limit-buffer.js';
import { createSqliteRateLimitStore } from '../http/rate-limit-sqlite.js';
import { JobQueue } from '../jobs/queue.js';
import { silentLogger, type Logger } from '../log/logger.js';
import { createUsageBuffer, type UsageBuffer } from './usage-buffer.js';
import { openControlDb } from '../storage/control.js';
import { dataDirLayout, type DataDirLayout } from '../storage/data-dir.js';
import { GraphDbPool } from '../storage/graph-db.js';
import { isBusyError, type Db } from '../storage/sqlite.js';
import { createMetrics, type Metrics } from './metrics.js';

/**
 * Everything a route, a job or a CLI command needs to act on one data directory. Built once per
 * process; the daemon and the CLI share it so they open databases the same way. Modules below the
 * routes and job definitions take only the fields they use (e.g. Pick<AppServices, 'controlDb' |
 * 'now'>), so they can be called and tested without the whole object.
 */
export interface AppServices {
  readonly config: ResolvedConfig;
  readonly layout: DataDirLayout;
  readonly controlDb: Db;
  readonly graphs: GraphDbPool;
  readonly jobs: JobQueue;
  readonly metrics: Metrics;
  readonly logger: Logger;
  /** Rate-limit counters (docs/contract.md#rate-limits): counted in memory, written to control.sqlite once a second. */
  readonly rateLimits: BufferedRateLimitStore;
  /** Per-request usage counts (api_requests), written once a second. */
  readonly usage: UsageBuffer;
  /** The clock, ms since epoch; tests may replace it. */
  readonly now: () => number;
  close(): void;
}

export interface CreateServicesOptions {
  logger?: Logger;
  /** The clock (ms since epoch); default Date.now. Tests pass a fake one. */
  now?: () => number;
}

export function createServices(config: ResolvedConfig, options: CreateServicesOptions = {}): AppServices {
  const layout = dataDirLayout(config.settings.dataDir);
  const controlDb = openControlDb(layout);
  const now = options.now ?? Date.now;
  const jobs = new JobQueue(controlDb, {
    maxAttempts: config.settings.jobMaxAttempts,
    leaseMs: config.settings.jobLeaseSeconds * 1000,
    now,
  });
  const graphs = new GraphDbPool(layout);
  const metrics = createMetrics(() => jobs);
  const logger = options.logger ?? silentLogger;
  const usage = createUsageBuffer(controlDb, {
    now,
    onError: (error) => logger.warn({ err: error }, 'usage counter flush failed'),
  });
  // Background flushes never wait for another process's write lock (that would stall the event
  // loop for the busy timeout); a busy database keeps the counts for the next flush.
  const rateLimits = createBufferedRateLimitStore(createSqliteRateLimitStore(controlDb, { waitForLock: false }), {
    now,
    onError: (error) => void (isBusyError(error) || logger.warn({ err: error }, 'rate-limit counter flush failed')),
  });
  return {
    config,
    layout,
    controlDb,
    graphs,
    jobs,
    metrics,
    logger,
    rateLimits,
    usage,
    now,
    close() {
      usage.close();
      void rateLimits.close(); // the SQLite writes run before close() returns its promise
      graphs.closeAll();
      if (controlDb.open) controlDb.close();
    },
  };
}
