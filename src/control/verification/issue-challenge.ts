import { randomBytes } from 'node:crypto';
import { applyStep } from './apply-step.js';
import type { VerificationDeps } from './deps.js';
import type { DomainVerification } from './domain-store.js';
import { requireDomainVerification } from './apply-step.js';
import type { ChallengeMethod } from './methods.js';

/** A verification token: 32 lowercase hex characters, safe in a TXT record, a meta tag and a file. */
export function newVerificationToken(): string {
  return randomBytes(16).toString('hex');
}

/**
 * POST .../verification/challenge: opens a challenge of `method` for the domain. The domain's
 * token is made on its first challenge and kept after (the proof a site owner placed stays
 * valid when they pick another method); a failed or revoked domain goes back to pending; a
 * verified one stays verified and the next check tries the new method first.
 */
export function issueChallenge(
  deps: VerificationDeps,
  input: { websiteId: string; domain: string; method: ChallengeMethod; actor: string },
): DomainVerification {
  const now = deps.now();
  const current = requireDomainVerification(deps.controlDb, input.websiteId, input.domain);
  const token = current.token ?? newVerificationToken();
  const applied = applyStep(
    deps.controlDb,
    input.websiteId,
    current.domain,
    {
      event: 'challenge',
      machine: { kind: 'challenge' },
      method: input.method,
      result: 'issued',
      actor: input.actor,
      evidence: `challenge ${input.method} issued`,
      patch: { token, challengeMethod: input.method, challengedAt: now },
    },
    now,
  )!;
  if (applied.changed && !applied.after.isAlias) deps.onTrustChanged?.(input.websiteId);
  return applied.after;
}
