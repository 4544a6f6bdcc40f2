import { isPostgresUrl, type ResolvedConfig } from '../config/index.js';
import {
  createBufferedRateLimitStore,
  type BufferedRateLimitStore,
  createSqliteRateLimitStore,
  createPostgresRateLimitStore,
} from '../http/index.js';
import { JobQueue, type Job } from '../jobs/index.js';
import { silentLogger, type Logger } from '../log/index.js';
import {
  createUsageBuffer,
  type UsageBuffer,
  openControlDb,
  dataDirLayout,
  type DataDirLayout,
  GraphDbPool,
  isBusyError,
  type Db,
  createFreeSpaceGuard,
  type FreeSpaceGuard,
  openPostgresControlStore,
  type PostgresStore,
} from '../storage/index.js';
import { createMetrics, type Metrics } from './metrics.js';

/** Items whose removal a republish waits for, and what an erasure purges (node.republish's payload). */
export interface RepublishRequest {
  website_id: string;
  removed: Array<{ type: string; id: string }>;
  erasure?: { item_keys: string[]; source_ids: string[]; record_ids: string[] };
}

/**
 * What the control plane and the signed ingest endpoints ask of the planes above them: the
 * graph's source trust and the published node. The daemon wires the real ones (src/daemon),
 * so a verification or a delete can act on the node without its feature importing output/.
 */
export interface NodeOperations {
  /** Sets the trust of every source in the website's graph to its verification's trust_score. */
  refreshTrust(websiteId: string): void;
  /** Enqueues the website's coalesced node.republish, or adds to the one queued this minute. */
  requestRepublish(request: RepublishRequest): Job;
  /** Whether a delete has anything published to change (a live version, a running publish, kept versions). */
  hasPublishedNode(websiteId: string, erase: boolean): Promise<boolean>;
  /** Deletes the website's published files from every target (the local folder, and S3 when configured). */
  eraseWebsiteNode(website: { websiteId: string; domain: string }): Promise<void>;
}

/**
 * Which websites' graphs this daemon writes, when daemons share a PostgreSQL control store
 * (src/ingest/ownership, docs/scaling.md "One writer per website"). Undefined otherwise: the one
 * daemon of a data directory writes every graph.
 */
export interface GraphOwnershipPort {
  /** The fencing token of this daemon's live tenure of the website's graph; undefined when it holds none. */
  tokenOf(websiteId: string): number | undefined;
  /** A batch was committed to the website's graph: it is snapshotted for the next owner. */
  wrote(websiteId: string): void;
}

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
  /**
   * An async pool on the PostgreSQL control store when controlStore is a postgres:// URL
   * (docs/scaling.md), for the request state read on every ingest request (nonces, idempotency
   * records, rate-limit windows); controlDb holds the same tables there. Undefined with SQLite.
   */
  readonly postgres?: PostgresStore;
  /**
   * Rate-limit counters (docs/contract.md#rate-limits): counted in memory, written once a second to
   * control.sqlite, or to the PostgreSQL control store when there is one.
   */
  readonly rateLimits: BufferedRateLimitStore;
  /** Per-request usage counts (api_requests), written once a second. */
  readonly usage: UsageBuffer;
  /** The free-space floor of the data directory's disk (minFreeDiskMb): new ingest is refused below it. */
  readonly freeSpace: FreeSpaceGuard;
  /** The clock, ms since epoch; tests may replace it. */
  readonly now: () => number;
  /**
   * The scrypt cost of new password hashes (src/control/records/password-hash.ts); undefined: the
   * product's. Tests in process lower it: a hash records its cost and verifies with it.
   */
  readonly passwordCost?: { readonly N: number; readonly r: number; readonly p: number };
  readonly nodes: NodeOperations;
  /** Set by the daemon when it shares a PostgreSQL control store with others (GraphOwnershipPort). */
  readonly ownership?: GraphOwnershipPort;
  close(): void;
}

export interface AssembleServicesOptions {
  /** The node operations over the services being built (src/daemon wires them). */
  nodes: (services: Omit<AppServices, 'nodes'>) => NodeOperations;
  logger?: Logger;
  /** The clock (ms since epoch); default Date.now. Tests pass a fake one. */
  now?: () => number;
  /** See AppServices.passwordCost. */
  passwordCost?: AppServices['passwordCost'];
}

export function assembleServices(config: ResolvedConfig, options: AssembleServicesOptions): AppServices {
  const layout = dataDirLayout(config.settings.dataDir);
  const controlDb = openControlDb(layout, config.settings.controlStore);
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
  const controlStore = config.settings.controlStore;
  const postgres =
    controlStore !== undefined && isPostgresUrl(controlStore) ? openPostgresControlStore(controlStore) : undefined;
  // Background flushes never wait for another process's write lock (that would stall the event
  // loop for the busy timeout); a busy database keeps the counts for the next flush.
  const sharedRateLimits = postgres
    ? createPostgresRateLimitStore(postgres)
    : createSqliteRateLimitStore(controlDb, { waitForLock: false });
  const rateLimits = createBufferedRateLimitStore(sharedRateLimits, {
    now,
    onError: (error) => void (isBusyError(error) || logger.warn({ err: error }, 'rate-limit counter flush failed')),
  });
  const freeSpace = createFreeSpaceGuard({ dir: layout.root, floorMb: config.settings.minFreeDiskMb });
  const services = {
    config,
    layout,
    freeSpace,
    controlDb,
    graphs,
    jobs,
    metrics,
    logger,
    rateLimits,
    usage,
    now,
    ...(options.passwordCost ? { passwordCost: options.passwordCost } : {}),
    ...(postgres ? { postgres } : {}),
    close() {
      usage.close();
      void rateLimits.close(); // the SQLite writes run before close() returns its promise
      void postgres?.close(); // after the statements under way, the flush's included
      graphs.closeAll();
      if (controlDb.open) controlDb.close();
    },
  };
  return { ...services, nodes: options.nodes(services) };
}
