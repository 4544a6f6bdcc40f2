import { applyStep, type AppliedStep } from './apply-step.js';
import type { VerificationDeps } from './deps.js';
import type { DomainVerification } from './domain-store.js';
import { challengeExpiresAt } from './state-machine.js';

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * A pending challenge 7 days old without a passing check: the domain becomes failed (a new
 * challenge reopens it, with the same token). Recorded as a `lapse` step by `system`: time did
 * it, whether the hourly job or a check noticed. Undefined when it does not apply (any more).
 */
export function expireChallenge(
  deps: VerificationDeps,
  subject: DomainVerification,
  now: number,
): AppliedStep | undefined {
  const expiresAt = challengeExpiresAt(subject);
  if (expiresAt === null) return undefined;
  const applied = applyStep(
    deps.controlDb,
    subject.websiteId,
    subject.domain,
    {
      event: 'lapse',
      machine: { kind: 'expire' },
      method: subject.challengeMethod,
      result: 'lapsed',
      actor: 'system',
      evidence: `the ${subject.challengeMethod ?? ''} challenge issued at ${iso(subject.challengedAt!)} expired at ${iso(expiresAt)} without a passing check (${subject.failureCount} failed)`,
    },
    now,
  );
  if (applied?.changed && !applied.after.isAlias) deps.onTrustChanged?.(subject.websiteId);
  return applied;
}
