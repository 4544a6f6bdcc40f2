import { applyStep, requireDomainVerification } from './apply-step.js';
import type { VerificationDeps } from './deps.js';
import type { DomainVerification } from './domain-store.js';

/**
 * `nodectl admin website verify --manual`: a platform operator vouches for the domain (tier
 * manual, weight 0.5). Verifies from any state; the daily re-check leaves a manual verification
 * alone (there is nothing to re-read). The note is kept as the evidence.
 */
export function grantManualVerification(
  deps: VerificationDeps,
  input: { websiteId: string; domain: string; actor: string; note: string },
): DomainVerification {
  const now = deps.now();
  const domain = requireDomainVerification(deps.controlDb, input.websiteId, input.domain).domain;
  const applied = applyStep(
    deps.controlDb,
    input.websiteId,
    domain,
    {
      event: 'manual',
      machine: { kind: 'manual' },
      method: 'manual',
      result: 'granted',
      actor: input.actor,
      evidence: input.note,
    },
    now,
  )!;
  if (applied.changed && !applied.after.isAlias) deps.onTrustChanged?.(input.websiteId);
  return applied.after;
}
