import type { Db } from '../../../platform/storage/sqlite.js';
import type { DomainVerification } from '../domain-store.js';
import type { ChallengeMethod } from '../methods.js';
import type { OwnershipProbes } from '../ownership-probes.js';

/** What one check reads the world with. */
export interface CheckContext {
  readonly probes: OwnershipProbes;
  /** For the plugin method: the connector of the proof must still be live. */
  readonly controlDb: Db;
  readonly now: number;
}

/** What one method found: whether the proof is there, and what was read (for the record). */
export interface CheckOutcome {
  readonly method: ChallengeMethod;
  readonly passed: boolean;
  readonly evidence: string;
}

export type MethodCheck = (
  subject: DomainVerification & { token: string },
  context: CheckContext,
) => Promise<CheckOutcome>;
