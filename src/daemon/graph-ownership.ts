import type { AppServices } from '../platform/app/index.js';
import type { Settings } from '../platform/config/index.js';
import { isPostgresDb } from '../platform/storage/index.js';
import { createSnapshotter, restoreGraph, type HandoverDeps } from '../ingest/handover/index.js';
import { GraphOwnership, ownedGraphJobs } from '../ingest/ownership/index.js';
import { refreshGraphTrust } from '../ingest/graph/index.js';
import { loadWebsiteInfo } from '../control/records/index.js';
import { deleteGraphFiles } from '../control/organizations/index.js';
import type { JobDefinition } from '../platform/job-runtime/index.js';
import { createTargetFromSettings } from '../output/publish/index.js';

export interface DaemonGraphOwnership {
  ownership: GraphOwnership;
  /** The daemon's job definitions with the graph kinds run by their website's writer only. */
  jobs(definitions: readonly JobDefinition[]): JobDefinition[];
  refreshTrust(websiteId: string): void;
  /** Stops renewing, waits for the last snapshot and gives the leases up. */
  close(): Promise<void>;
}

/**
 * With a PostgreSQL control store and an S3 publish target, several daemons may serve one
 * deployment: each website's graph then has one writer (src/ingest/ownership), snapshotted to the
 * bucket, where the next writer restores it (src/ingest/handover). Otherwise undefined: with
 * control.sqlite there is one daemon, and with the fs target no other daemon could read a snapshot.
 */
export async function createGraphOwnership(
  services: AppServices,
  settings: Settings,
  listenAddress: () => string,
): Promise<DaemonGraphOwnership | undefined> {
  if (!isPostgresDb(services.controlDb) || settings.publishTarget !== 's3') return undefined;
  const target = await createTargetFromSettings(settings);
  const deps: HandoverDeps = { ...services, snapshots: target };
  const snapshotter = createSnapshotter(deps);
  const websiteExists = services.controlDb.prepare('SELECT 1 FROM websites WHERE id = ?');
  // Trust follows the website's verification, which any daemon may change: the writer compares
  // before each graph job and refreshes the graph's source trust when it changed.
  const trustSeen = new Map<string, string>();
  const refreshTrustIfChanged = (websiteId: string) => {
    const site = loadWebsiteInfo(services.controlDb, websiteId);
    const seen = site && JSON.stringify(site);
    if (!seen || trustSeen.get(websiteId) === seen) return;
    refreshGraphTrust(services, websiteId);
    trustSeen.set(websiteId, seen);
  };
  const ownership = new GraphOwnership({
    controlDb: services.controlDb,
    jobs: services.jobs,
    logger: services.logger,
    now: services.now,
    leaseMs: settings.websiteLeaseSeconds * 1000,
    address: () => settings.advertiseUrl ?? listenAddress(),
    release: (websiteId) => {
      services.graphs.release(websiteId);
      // Deleted (or erased) through another daemon: the graph leaves this daemon's disk too.
      if (!websiteExists.get(websiteId)) deleteGraphFiles(services, websiteId);
    },
    handover: {
      restore: async (websiteId, token) => {
        const restored = await restoreGraph(deps, websiteId, token);
        trustSeen.delete(websiteId); // the restored graph holds the trust of its snapshot
        return {
          rawContentIds: [...new Set([...restored.pendingRawContentIds, ...restored.rawContentIds])],
          removed: restored.removed,
          ...(restored.reason ? { reason: restored.reason } : {}),
        };
      },
      snapshot: (websiteId, token) => snapshotter.request(websiteId, token),
      idle: () => snapshotter.idle(),
    },
  });
  return {
    ownership,
    jobs: (definitions) => ownedGraphJobs(definitions, ownership, refreshTrustIfChanged),
    /** A verification answered here refreshes the graph only where it is written (the writer's next job otherwise). */
    refreshTrust: (websiteId) => {
      if (ownership.tokenOf(websiteId) !== undefined) refreshTrustIfChanged(websiteId);
    },
    async close() {
      await ownership.stop();
      await target.close();
    },
  };
}
