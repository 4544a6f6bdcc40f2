import { AppError } from '../../platform/errors/index.js';
import type { Db } from '../../platform/storage/index.js';
import { emitEvent } from '../events/index.js';
import { countsAsVerified, trustScore } from '../records/index.js';
import {
  readDomainVerification,
  recordVerificationEvent,
  writeDomainVerification,
  type DomainVerification,
  type VerificationEventInput,
} from './domain-store.js';
import { tierOf } from './methods.js';
import { transition, type MachineEvent } from './state-machine.js';

/** One step of a domain's verification: the machine event and what the record keeps of it. */
export interface VerificationStep {
  readonly event: VerificationEventInput['event'];
  readonly machine: MachineEvent;
  readonly method: string | null;
  readonly result: VerificationEventInput['result'];
  readonly evidence: string;
  readonly actor: string;
  /** Columns the step sets besides the state machine's (a challenge's token, a check's time). */
  readonly patch?: Partial<Pick<DomainVerification, 'challengeMethod' | 'token' | 'challengedAt' | 'lastCheckedAt'>>;
}

export interface AppliedStep {
  readonly before: DomainVerification;
  readonly after: DomainVerification;
  /** The state or the proving method changed: trust changed, verification.changed was written. */
  readonly changed: boolean;
}

/** The domain's verification, or 404 naming what to do. */
export function requireDomainVerification(db: Db, websiteId: string, domain: string): DomainVerification {
  const found = readDomainVerification(db, websiteId, domain);
  if (!found)
    throw new AppError(
      'website.alias_not_found',
      `${domain} is neither this website's domain nor one of its aliases: add it first (POST /v1/websites/${websiteId}/aliases).`,
    );
  return found;
}

/** What verification.changed carries (docs/verification.md "Events"). */
function changedEventData(before: DomainVerification, after: DomainVerification) {
  const tier = tierOf(after.method);
  return {
    domain: after.domain,
    alias: after.isAlias,
    previous_state: before.state,
    state: after.state,
    method: after.method,
    trust_tier: tier !== null && countsAsVerified(after.state) ? tier : 'unverified',
    trust_score: trustScore(tier, after.state),
  };
}

/**
 * Applies one step in one transaction: re-reads the domain (a check ran its network I/O
 * outside any transaction), moves the state machine, writes the record with its summaries, the
 * event row, and, when the state or the proving method changed, a verification.changed event in
 * the outbox. Undefined when the step no longer applies (the domain went to failed or revoked
 * meanwhile, or its challenge expired), and nothing is written.
 */
export function applyStep(
  db: Db,
  websiteId: string,
  domain: string,
  step: VerificationStep,
  now: number,
): AppliedStep | undefined {
  return db
    .transaction(() => {
      const before = requireDomainVerification(db, websiteId, domain);
      const moved = transition(before, step.machine, now);
      if (!moved) return undefined;
      const next: DomainVerification = {
        ...before,
        ...step.patch,
        state: moved.state,
        method: moved.method,
        graceUntil: moved.graceUntil,
        verifiedAt: moved.verifiedAt,
        failureCount: moved.failureCount,
        updatedAt: now,
      };
      writeDomainVerification(db, next);
      recordVerificationEvent(
        db,
        {
          websiteId,
          domain: before.domain,
          event: step.event,
          method: step.method,
          result: step.result,
          fromState: before.state,
          toState: next.state,
          evidence: step.evidence,
          actor: step.actor,
        },
        now,
      );
      // Read back: what the record derives from the step just written (the last failure) is in it.
      const after = readDomainVerification(db, websiteId, before.domain)!;
      const changed = before.state !== after.state || before.method !== after.method;
      if (changed)
        emitEvent(
          db,
          { type: 'verification.changed', website_id: websiteId, data: changedEventData(before, after) },
          now,
        );
      return { before, after, changed };
    })
    .immediate();
}
