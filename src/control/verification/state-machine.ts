import type { VerificationState } from '../records/index.js';

/** How long a verified domain keeps half its trust after a re-check fails (docs/contract.md#verification). */
export const GRACE_MS = 7 * 24 * 60 * 60 * 1000;
/**
 * How long a pending challenge stays open for checks after it was issued: failed checks keep it
 * (DNS takes time to propagate), and at its end the domain is failed (docs/verification.md "Checking too early").
 */
export const CHALLENGE_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** The state fields the transitions move, and the challenge time they read. */
export interface MachineState {
  readonly state: VerificationState;
  /** What proved the current verification; kept through grace and revocation for the record. */
  readonly method: string | null;
  readonly graceUntil: number | null;
  readonly verifiedAt: number | null;
  readonly failureCount: number;
  /** When the open challenge was issued (read, never moved: a challenge step sets it). */
  readonly challengedAt: number | null;
}

export type MachineEvent =
  | { readonly kind: 'challenge' }
  /** `method` decided (the one that passed, else the first tried); `tried` is every method read. */
  | { readonly kind: 'check'; readonly passed: boolean; readonly method: string; readonly tried: readonly string[] }
  | { readonly kind: 'lapse' }
  | { readonly kind: 'expire' }
  | { readonly kind: 'manual' };

/** When the open challenge of a pending domain expires; null when the domain is not pending or has no challenge. */
export function challengeExpiresAt(current: Pick<MachineState, 'state' | 'challengedAt'>): number | null {
  return current.state === 'pending' && current.challengedAt !== null ? current.challengedAt + CHALLENGE_TTL_MS : null;
}

export function challengeExpired(current: Pick<MachineState, 'state' | 'challengedAt'>, now: number): boolean {
  const expiresAt = challengeExpiresAt(current);
  return expiresAt !== null && expiresAt <= now;
}

/**
 * Pure: the state after `event` at `now`, or undefined when the event does not apply in this
 * state (a check of a failed or revoked domain, or of an expired challenge, needs a new
 * challenge first; a lapse needs a grace window that has ended; an expiry a challenge that has).
 * docs/contract.md#verification, as revised for early checks (docs/verification.md "States"):
 *
 * | from | event | to |
 * |---|---|---|
 * | pending | check passes / fails | verified / pending (the challenge and its token stay) |
 * | pending | the challenge is 7 days old | failed |
 * | verified | a re-check of the proving method fails | grace (7 days) |
 * | grace | check passes | verified |
 * | grace | the 7 days lapse | revoked |
 * | failed, revoked | a new challenge | pending |
 *
 * and, where the table is silent: a challenge in pending, verified or grace keeps the state (it
 * opens a method to try next); a passing check of a verified domain keeps it verified; a failing
 * check that did not read the proving method (a manual grant: nothing to read) leaves the
 * verification as it is; a failing check in grace keeps the window it had (no extension); a
 * manual grant verifies from any state.
 */
export function transition(current: MachineState, event: MachineEvent, now: number): MachineState | undefined {
  switch (event.kind) {
    case 'challenge':
      return current.state === 'failed' || current.state === 'revoked'
        ? { ...current, state: 'pending', graceUntil: null }
        : current;
    case 'manual':
      return { ...current, state: 'verified', method: 'manual', graceUntil: null, verifiedAt: now, failureCount: 0 };
    case 'lapse':
      return current.state === 'grace' && current.graceUntil !== null && current.graceUntil <= now
        ? { ...current, state: 'revoked', graceUntil: null }
        : undefined;
    case 'expire':
      return challengeExpired(current, now) ? { ...current, state: 'failed' } : undefined;
    case 'check': {
      if (current.state === 'failed' || current.state === 'revoked' || challengeExpired(current, now)) return undefined;
      if (event.passed)
        return {
          ...current,
          state: 'verified',
          method: event.method,
          graceUntil: null,
          verifiedAt: current.state === 'verified' && current.method === event.method ? current.verifiedAt : now,
          failureCount: 0,
        };
      const failureCount = current.failureCount + 1;
      // An early check: the record may not have propagated yet; the challenge stays open.
      if (current.state === 'pending') return { ...current, failureCount };
      if (current.state === 'verified' && current.method !== null && event.tried.includes(current.method))
        return { ...current, state: 'grace', graceUntil: now + GRACE_MS, failureCount };
      return { ...current, failureCount }; // grace keeps its end; a proof not read (manual) is not demoted
    }
  }
}
