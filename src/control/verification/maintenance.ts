import { applyStep } from './apply-step.js';
import { checkDomain } from './check-domain.js';
import type { VerificationDeps } from './deps.js';
import { listDueForRecheck, listLapsedGrace } from './domain-store.js';
import type { OwnershipProbes } from './ownership-probes.js';

/** A verified (or in-grace) domain is re-read once a day. */
export const RECHECK_INTERVAL_MS = 24 * 60 * 60 * 1000;
/** Domains re-read per run at most (the job runs hourly; the rest wait for the next run). */
export const RECHECK_BATCH = 200;

export interface MaintenanceReport {
  rechecked: number;
  /** Re-checks that could not run (logged; retried on the next run). */
  errors: number;
  lapsed: number;
  /** Websites whose own domain's trust changed: the caller republishes them. */
  changedWebsites: string[];
}

/**
 * The verification.check job's work: re-reads the proof of every verified or in-grace domain not
 * checked for a day (a failed re-check starts the 7-day grace window, a passing one ends it),
 * then revokes every domain whose grace window has ended (time only). Manual verifications are
 * not re-read. Stops between domains when `signal` aborts.
 */
export async function runVerificationMaintenance(
  deps: VerificationDeps,
  probes: OwnershipProbes,
  options: { signal?: AbortSignal; onError?: (error: unknown, domain: string) => void } = {},
): Promise<MaintenanceReport> {
  const report: MaintenanceReport = { rechecked: 0, errors: 0, lapsed: 0, changedWebsites: [] };
  const changed = new Set<string>();
  const watch = {
    ...deps,
    onTrustChanged: (websiteId: string) => {
      changed.add(websiteId);
      deps.onTrustChanged?.(websiteId);
    },
  };
  for (const due of listDueForRecheck(deps.controlDb, deps.now() - RECHECK_INTERVAL_MS, RECHECK_BATCH)) {
    if (options.signal?.aborted) break;
    try {
      await checkDomain(watch, probes, {
        websiteId: due.websiteId,
        domain: due.domain,
        actor: 'system',
        event: 'recheck',
      });
      report.rechecked++;
    } catch (error) {
      report.errors++;
      options.onError?.(error, due.domain);
    }
  }
  const now = deps.now();
  for (const lapsed of listLapsedGrace(deps.controlDb, now)) {
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
        evidence: `the grace window ended at ${new Date(lapsed.graceUntil ?? now).toISOString()} without a passing check`,
      },
      now,
    );
    if (!applied) continue;
    report.lapsed++;
    if (applied.changed && !applied.after.isAlias) watch.onTrustChanged(lapsed.websiteId);
  }
  report.changedWebsites = [...changed].sort();
  return report;
}
