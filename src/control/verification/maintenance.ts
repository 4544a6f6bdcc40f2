import { applyStep } from './apply-step.js';
import { checkDomain } from './check-domain.js';
import type { VerificationDeps } from './deps.js';
import {
  listDueForRecheck,
  listExpiredChallenges,
  listLapsedGrace,
  listPendingForRecheck,
  type DomainVerification,
} from './domain-store.js';
import { expireChallenge } from './expire-challenge.js';
import type { OwnershipProbes } from './ownership-probes.js';
import { CHALLENGE_TTL_MS } from './state-machine.js';

/** A verified (or in-grace) domain is re-read once a day. */
export const RECHECK_INTERVAL_MS = 24 * 60 * 60 * 1000;
/**
 * A pending challenge is re-read on each hourly run, unless it was issued or checked within this
 * time (the owner's own check just read it; the record they place takes minutes to propagate).
 */
export const PENDING_RECHECK_QUIET_MS = 30 * 60 * 1000;
/** Domains re-read per run at most, of each kind (the job runs hourly; the rest wait for the next run). */
export const RECHECK_BATCH = 200;

export interface MaintenanceReport {
  /** Re-checks run: of verified or in-grace domains, and of pending challenges. */
  rechecked: number;
  pendingRechecked: number;
  /** Re-checks that could not run (logged; retried on the next run). */
  errors: number;
  /** Pending challenges that expired (the domain is failed). */
  expired: number;
  lapsed: number;
  /** Websites whose own domain's trust changed: the caller republishes them. */
  changedWebsites: string[];
}

/**
 * The verification.check job's work, in order: fails every pending challenge 7 days old without a
 * passing check; re-reads the proof of every open pending challenge (so a domain verifies by
 * itself once its record has propagated) and of every verified or in-grace domain not checked
 * for a day (a failed re-check starts the 7-day grace window, a passing one ends it); then
 * revokes every domain whose grace window has ended (time only). Manual verifications are not
 * re-read. Every read goes through the same probes (the guarded fetcher, the configured DNS) as
 * a check over HTTP. Stops between domains when `signal` aborts.
 */
export async function runVerificationMaintenance(
  deps: VerificationDeps,
  probes: OwnershipProbes,
  options: { signal?: AbortSignal; onError?: (error: unknown, domain: string) => void } = {},
): Promise<MaintenanceReport> {
  const report: MaintenanceReport = {
    rechecked: 0,
    pendingRechecked: 0,
    errors: 0,
    expired: 0,
    lapsed: 0,
    changedWebsites: [],
  };
  const changed = new Set<string>();
  const watch = {
    ...deps,
    onTrustChanged: (websiteId: string) => {
      changed.add(websiteId);
      deps.onTrustChanged?.(websiteId);
    },
  };
  for (const pending of listExpiredChallenges(deps.controlDb, deps.now() - CHALLENGE_TTL_MS)) {
    if (expireChallenge(watch, pending, deps.now())) report.expired++;
  }

  const recheck = async (due: DomainVerification): Promise<boolean> => {
    try {
      await checkDomain(watch, probes, {
        websiteId: due.websiteId,
        domain: due.domain,
        actor: 'system',
        event: 'recheck',
      });
      return true;
    } catch (error) {
      report.errors++;
      options.onError?.(error, due.domain);
      return false;
    }
  };
  const now = deps.now();
  const pendingDue = listPendingForRecheck(deps.controlDb, {
    issuedAfter: now - CHALLENGE_TTL_MS,
    quietSince: now - PENDING_RECHECK_QUIET_MS,
    limit: RECHECK_BATCH,
  });
  for (const due of pendingDue) {
    if (options.signal?.aborted) break;
    if (await recheck(due)) report.pendingRechecked++;
  }
  for (const due of listDueForRecheck(deps.controlDb, deps.now() - RECHECK_INTERVAL_MS, RECHECK_BATCH)) {
    if (options.signal?.aborted) break;
    if (await recheck(due)) report.rechecked++;
  }

  const lapseAt = deps.now();
  for (const lapsed of listLapsedGrace(deps.controlDb, lapseAt)) {
    const applied = applyStep(
      deps.controlDb,
      lapsed.websiteId,
      lapsed.domain,
      {
        event: 'lapse',
        machine: { kind: 'lapse' },
        method: lapsed.method,
        result: 'lapsed',
        actor: 'system',
        evidence: `the grace window ended at ${new Date(lapsed.graceUntil ?? lapseAt).toISOString()} without a passing check`,
      },
      lapseAt,
    );
    if (!applied) continue;
    report.lapsed++;
    if (applied.changed && !applied.after.isAlias) watch.onTrustChanged(lapsed.websiteId);
  }
  report.changedWebsites = [...changed].sort();
  return report;
}
