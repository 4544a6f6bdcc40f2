import type { Db } from '../../platform/storage/sqlite.js';

/**
 * What the verification operations need: the control database,
 * the clock, and what to do when a website's trust changed.
 */
export interface VerificationDeps {
  readonly controlDb: Db;
  readonly now: () => number;
  /**
   * Called after a step changed the state or the proving method of a website's own domain (its
   * trust); the daemon refreshes the graph's source trust (graph-trust.ts). Default: nothing.
   */
  readonly onTrustChanged?: (websiteId: string) => void;
}
