import type { AppServices } from '../../platform/app/index.js';
import type { Db } from '../../platform/storage/index.js';

/**
 * What the verification operations need: the control database,
 * the clock, and what to do when a website's trust changed.
 */
export interface VerificationDeps {
  readonly controlDb: Db;
  readonly now: () => number;
  /**
   * Called after a step changed the state or the proving method of a website's own domain (its
   * trust); the daemon refreshes the graph's source trust (services.nodes). Default: nothing.
   */
  readonly onTrustChanged?: (websiteId: string) => void;
}

/** The verification operations wired to the daemon: a change of a website's trust refreshes its graph's source trust. */
export function verificationDeps(
  services: Pick<AppServices, 'controlDb' | 'now' | 'logger' | 'nodes'>,
): VerificationDeps {
  return {
    controlDb: services.controlDb,
    now: services.now,
    onTrustChanged: (websiteId) => {
      try {
        services.nodes.refreshTrust(websiteId);
      } catch (error) {
        // The next content.ingest run sets the same trust; the verification itself is committed.
        services.logger.warn(
          { err: error, websiteId },
          "the graph's source trust could not be refreshed after a verification change",
        );
      }
    },
  };
}
