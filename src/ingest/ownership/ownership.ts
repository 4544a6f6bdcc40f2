import { hostname } from 'node:os';
import type { GraphOwnershipPort } from '../../platform/app/index.js';
import type { DeleteReason } from '../../platform/contract/index.js';
import { AppError } from '../../platform/errors/index.js';
import { newUlid } from '../../platform/ids/index.js';
import { JobDeferredError, type JobDefinition } from '../../platform/job-runtime/index.js';
import type { JobQueue } from '../../platform/jobs/index.js';
import type { Logger } from '../../platform/log/index.js';
import { createWebsiteLeases, type Db, type WebsiteLeases } from '../../platform/storage/index.js';
import { contentIngestJob } from '../graph/index.js';

/** Where a website's graph is written: here, in the tenure `token`, or by another daemon. */
export type GraphLocation = { here: true; token: number } | { here: false; owner: string; address: string | null };

/** What a new tenure leaves to enqueue: the items the restored graph has not turned into records yet. */
export interface RestoredGraph {
  rawContentIds: string[];
  removed: Array<{ type: string; id: string }>;
  /** gdpr_erasure when a removed item was erased: the job then erases its records. */
  reason?: DeleteReason;
}

/** How a graph moves (src/ingest/handover): restored at a new tenure, snapshotted after writes. */
export interface GraphHandoverOps {
  restore(websiteId: string, token: number): Promise<RestoredGraph>;
  snapshot(websiteId: string, token: number): void;
  /** Resolves once no snapshot is under way (shutdown waits for the last). */
  idle(): Promise<void>;
}

export interface GraphOwnershipOptions {
  controlDb: Db;
  jobs: Pick<JobQueue, 'enqueue'>;
  logger: Logger;
  now: () => number;
  handover: GraphHandoverOps;
  /** This daemon's base URL as the others reach it (settings.advertiseUrl); known once it listens. */
  address: () => string;
  leaseMs: number;
  /** The graph's local connections are closed (a lost tenure: the next one restores the file). */
  release(websiteId: string): void;
}

/** The name a daemon's leases carry: readable in the table, unique per process start. */
export function newDaemonId(): string {
  return `${hostname()}:${process.pid}:${newUlid()}`;
}

/**
 * One writer per website's graph across the daemons sharing a PostgreSQL control store
 * (docs/scaling.md "One writer per website"). A daemon writes a website's graph only while it
 * holds the website's lease; it takes a free or lapsed lease when a request or a job needs the
 * graph, restoring the latest snapshot and replaying the journal first (a new tenure never trusts
 * a local file a former tenure left), renews its leases every third of their length, and lets
 * go of those it lost. `keep()` also adopts the websites whose owner died with work queued.
 */
export class GraphOwnership implements GraphOwnershipPort {
  readonly daemonId = newDaemonId();
  private readonly leases: WebsiteLeases;
  /** The tenures this daemon holds, as last granted or renewed. */
  private readonly tenures = new Map<string, { token: number; expiresAt: number }>();
  /** Acquisitions under way (a restore can take a while): every caller waits for the same one. */
  private readonly taking = new Map<string, Promise<GraphLocation>>();
  private timer: NodeJS.Timeout | undefined;
  private keeping: Promise<void> | undefined;

  constructor(private readonly options: GraphOwnershipOptions) {
    this.leases = createWebsiteLeases(options.controlDb);
  }

  /** A renewal margin: a tenure is treated as lost this long before its lease would lapse. */
  private get marginMs(): number {
    return Math.floor(this.options.leaseMs / 3);
  }

  tokenOf(websiteId: string): number | undefined {
    const tenure = this.tenures.get(websiteId);
    return tenure && tenure.expiresAt - this.marginMs > this.options.now() ? tenure.token : undefined;
  }

  wrote(websiteId: string): void {
    const token = this.tokenOf(websiteId);
    if (token !== undefined) this.options.handover.snapshot(websiteId, token);
  }

  /** Where the website's graph is written; takes the website when nobody holds it (restoring its graph). */
  locate(websiteId: string): Promise<GraphLocation> {
    const token = this.tokenOf(websiteId);
    if (token !== undefined) return Promise.resolve({ here: true, token });
    let taking = this.taking.get(websiteId);
    if (!taking) {
      taking = this.take(websiteId).finally(() => this.taking.delete(websiteId));
      this.taking.set(websiteId, taking);
    }
    return taking;
  }

  private async take(websiteId: string): Promise<GraphLocation> {
    const { now, leaseMs, address, logger } = this.options;
    const grant = this.leases.acquire(websiteId, this.daemonId, now(), leaseMs, address());
    if (!grant.granted) {
      this.forget(websiteId);
      return { here: false, owner: grant.holder.owner, address: grant.holder.address };
    }
    const { token, expiresAt } = grant.lease;
    if (this.tenures.get(websiteId)?.token !== token) {
      this.forget(websiteId);
      try {
        const restored = await this.options.handover.restore(websiteId, token);
        this.enqueueRestored(websiteId, restored);
        logger.info(
          { websiteId, token, pending: restored.rawContentIds.length, removed: restored.removed.length },
          'took over the website graph: snapshot restored, journal replayed',
        );
      } catch (error) {
        this.leases.release(websiteId, this.daemonId);
        throw new AppError(
          'service.unavailable',
          `The graph of website ${websiteId} could not be restored on this daemon (${(error as Error).message}); retry shortly.`,
          { cause: error },
        );
      }
    }
    this.tenures.set(websiteId, { token, expiresAt });
    return { here: true, token };
  }

  private enqueueRestored(websiteId: string, restored: RestoredGraph): void {
    if (restored.rawContentIds.length === 0 && restored.removed.length === 0) return;
    this.options.jobs.enqueue(contentIngestJob, {
      website_id: websiteId,
      raw_content_ids: restored.rawContentIds,
      ...(restored.removed.length > 0 ? { removed: restored.removed } : {}),
      ...(restored.reason ? { reason: restored.reason } : {}),
    });
  }

  private forget(websiteId: string): void {
    if (this.tenures.delete(websiteId)) this.options.release(websiteId);
  }

  /** Renews, drops and adopts leases every third of their length until stop(). */
  start(): void {
    const tick = () => {
      this.keeping ??= this.keep().finally(() => (this.keeping = undefined));
    };
    this.timer = setInterval(tick, this.marginMs);
    this.timer.unref();
    tick();
  }

  /**
   * One round: renew every tenure (one that cannot be renewed is gone: its local connections
   * close), then take the websites with work but no live owner (a dead daemon's queued jobs or
   * journal), so that nothing it acknowledged waits for a client to come back.
   */
  async keep(): Promise<void> {
    const { now, leaseMs, logger } = this.options;
    try {
      // One statement renews them all; a tenure whose lease was not renewed (or has a new token) is gone.
      const renewed = new Map(this.leases.renewAll(this.daemonId, now(), leaseMs).map((l) => [l.websiteId, l]));
      for (const [websiteId, tenure] of [...this.tenures]) {
        const lease = renewed.get(websiteId);
        if (lease?.token === tenure.token)
          this.tenures.set(websiteId, { token: tenure.token, expiresAt: lease.expiresAt });
        else {
          logger.warn({ websiteId }, 'lost the website graph lease; another daemon writes it now');
          this.forget(websiteId);
        }
      }
      for (const websiteId of this.orphans(now())) await this.locate(websiteId).catch(() => undefined);
    } catch (error) {
      logger.warn({ err: error }, 'website graph lease round failed; retrying at the next');
    }
  }

  /** Websites with queued graph work or journal entries whose lease nobody holds. */
  private orphans(nowMs: number): string[] {
    const rows = this.options.controlDb
      .prepare(
        `SELECT website_id AS "websiteId" FROM ingest_journal
         WHERE website_id NOT IN (SELECT website_id FROM website_leases WHERE expires_at > ?)
         UNION
         SELECT json_extract(payload, '$.website_id') AS "websiteId" FROM jobs
         WHERE kind IN (${GRAPH_JOB_KINDS.map(() => '?').join(', ')})
           AND ((state = 'queued' AND run_at <= ?) OR (state = 'running' AND lease_until < ?))
           AND json_extract(payload, '$.website_id') NOT IN (SELECT website_id FROM website_leases WHERE expires_at > ?)
         ORDER BY 1 LIMIT 100`,
      )
      .all(nowMs, ...GRAPH_JOB_KINDS, nowMs, nowMs, nowMs) as Array<{ websiteId: string | null }>;
    const exists = this.options.controlDb.prepare('SELECT 1 FROM websites WHERE id = ?');
    return rows.flatMap((r) => (r.websiteId && exists.get(r.websiteId) ? [r.websiteId] : []));
  }

  /** Stops renewing and, after the last snapshot, gives every lease up so others take over at once. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.keeping;
    await this.options.handover.idle();
    for (const websiteId of [...this.tenures.keys()]) {
      this.leases.release(websiteId, this.daemonId);
      this.forget(websiteId);
    }
  }
}

/**
 * The job kinds that read or write a website's graph file: with several daemons, only the
 * website's lease holder claims them (JobQueue.claimOwnedOnly).
 */
export const GRAPH_JOB_KINDS: readonly string[] = ['content.ingest', 'embeddings.compute', 'node.republish'];

/** How long a graph job that met another daemon's lease waits before it is looked at again. */
const NOT_OWNER_RETRY_MS = 2_000;

/**
 * The daemon's job definitions with the graph kinds run by the website's lease holder only: the
 * handler first waits for this daemon's tenure (restoring the graph when it takes the website),
 * defers the job when another daemon holds it, and has the graph snapshotted after it ran.
 */
export function ownedGraphJobs(
  definitions: readonly JobDefinition[],
  ownership: GraphOwnership,
  /** Runs on the writer before each graph job (the trust refresh a verification on another daemon asked for). */
  beforeJob: (websiteId: string) => void = () => {},
): JobDefinition[] {
  return definitions.map((definition) =>
    GRAPH_JOB_KINDS.includes(definition.kind)
      ? {
          ...definition,
          async handler(payload, context) {
            const websiteId = (payload as { website_id: string }).website_id;
            const location = await ownership.locate(websiteId);
            if (!location.here)
              throw new JobDeferredError(
                `website ${websiteId}'s graph is written by daemon ${location.owner}`,
                NOT_OWNER_RETRY_MS,
              );
            beforeJob(websiteId);
            await definition.handler(payload, context);
            ownership.wrote(websiteId);
          },
        }
      : definition,
  );
}
