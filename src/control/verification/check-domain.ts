import { AppError } from '../../platform/errors/index.js';
import { applyStep, requireDomainVerification } from './apply-step.js';
import { METHOD_CHECKS, type CheckOutcome } from './checks/index.js';
import type { VerificationDeps } from './deps.js';
import type { DomainVerification } from './domain-store.js';
import { isChallengeMethod, type ChallengeMethod } from './methods.js';
import type { OwnershipProbes } from './ownership-probes.js';
import { expireChallenge } from './expire-challenge.js';
import { challengeExpired, challengeExpiresAt } from './state-machine.js';

export interface DomainCheck {
  readonly verification: DomainVerification;
  /** The method that decided and what was read; every method tried is in the evidence. */
  readonly outcome: CheckOutcome;
}

/** The methods a check tries, in order: the open challenge's, then the one that proved the current verification. */
function methodsToTry(subject: DomainVerification): ChallengeMethod[] {
  const methods: ChallengeMethod[] = [];
  if (subject.challengeMethod) methods.push(subject.challengeMethod);
  if (
    isChallengeMethod(subject.method) &&
    subject.method !== subject.challengeMethod &&
    (subject.state === 'verified' || subject.state === 'grace')
  )
    methods.push(subject.method);
  return methods;
}

/**
 * Throws 409 verification.challenge_required when the domain has nothing to check: it failed
 * or was revoked, or its pending challenge expired (the domain is moved to failed on the way).
 */
function refuseUnlessCheckable(deps: VerificationDeps, subject: DomainVerification, websiteId: string): void {
  const challengeRoute = `POST /v1/websites/${websiteId}/verification/challenge`;
  if (subject.state === 'failed' || subject.state === 'revoked')
    throw new AppError(
      'verification.challenge_required',
      `The verification of ${subject.domain} is ${subject.state}: issue a challenge (${challengeRoute}), place the proof, then check again.`,
    );
  const now = deps.now();
  if (challengeExpired(subject, now)) {
    expireChallenge(deps, subject, now);
    throw new AppError(
      'verification.challenge_required',
      `The challenge for ${subject.domain} expired at ${new Date(challengeExpiresAt(subject)!).toISOString()}, 7 days after it was issued, without a passing check: issue a new challenge (${challengeRoute}); the token stays the same, so a proof you placed stays valid; then check again.`,
    );
  }
}

/**
 * POST .../verification/check and the hourly re-check: reads the proof over the network (outside
 * any transaction), then moves the state machine with what was found (docs/contract.md#verification).
 * A failing check of a pending domain keeps the challenge open until it expires.
 * 409 verification.challenge_required when there is nothing to check: no challenge yet, an
 * expired one, or the domain failed or was revoked (a new challenge makes it pending again).
 */
export async function checkDomain(
  deps: VerificationDeps,
  probes: OwnershipProbes,
  input: { websiteId: string; domain: string; actor: string; event?: 'check' | 'recheck' },
): Promise<DomainCheck> {
  const subject = requireDomainVerification(deps.controlDb, input.websiteId, input.domain);
  const methods = methodsToTry(subject);
  refuseUnlessCheckable(deps, subject, input.websiteId);
  if (subject.token === null || methods.length === 0) {
    throw new AppError(
      'verification.challenge_required',
      `Nothing to check for ${subject.domain}: issue a challenge first (POST /v1/websites/${input.websiteId}/verification/challenge with a method).`,
    );
  }
  const outcomes: CheckOutcome[] = [];
  for (const method of methods) {
    const outcome = await METHOD_CHECKS[method](
      { ...subject, token: subject.token },
      { probes, controlDb: deps.controlDb, now: deps.now() },
    );
    outcomes.push(outcome);
    if (outcome.passed) break;
  }
  const decided = outcomes.find((o) => o.passed) ?? outcomes[0]!;
  const evidence = outcomes.map((o) => `${o.method} ${o.passed ? 'passed' : 'failed'}: ${o.evidence}`).join(' | ');
  const now = deps.now();
  const applied = applyStep(
    deps.controlDb,
    input.websiteId,
    subject.domain,
    {
      event: input.event ?? 'check',
      machine: {
        kind: 'check',
        passed: decided.passed,
        method: decided.method,
        tried: outcomes.map((o) => o.method),
      },
      method: decided.method,
      result: decided.passed ? 'passed' : 'failed',
      evidence,
      actor: input.actor,
      patch: { lastCheckedAt: now },
    },
    now,
  );
  if (!applied) {
    // The domain moved while the proof was read (failed, revoked, or the challenge expired).
    refuseUnlessCheckable(
      deps,
      requireDomainVerification(deps.controlDb, input.websiteId, subject.domain),
      input.websiteId,
    );
  }
  if (applied?.changed && !applied.after.isAlias) deps.onTrustChanged?.(input.websiteId);
  return {
    verification: applied?.after ?? requireDomainVerification(deps.controlDb, input.websiteId, subject.domain),
    outcome: { ...decided, evidence },
  };
}
