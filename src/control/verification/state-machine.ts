import type { VerificationState } from '../records/website-info.js';

/** How long a verified domain keeps half its trust after a re-check fails (docs/contract.md#verification). */
export const GRACE_MS = 7 * 24 * 60 * 60 * 1000;

/** The state fields the transitions move. */
export interface MachineState {
  readonly state: VerificationState;
  /** What proved the current verification; kept through grace and revocation for the record. */
  readonly method: string | null;
  readonly graceUntil: number | null;
  readonly verifiedAt: number | null;
  readonly failureCount: number;
}

export type MachineEvent =
  | { readonly kind: 'challenge' }
  | { readonly kind: 'check'; readonly passed: boolean; readonly method: string }
  | { readonly kind: 'lapse' }
  | { readonly kind: 'manual' };

/**
 * Pure: the state after `event` at `now`, or undefined when the event does not apply in this
 * state (a check of a failed or revoked domain needs a new challenge first; a lapse needs a
 * grace window that has ended). docs/contract.md#verification, the table:
 *
 * | from | event | to |
 * |---|---|---|
 * | pending | check passes / fails | verified / failed |
 * | verified | a re-check fails | grace (7 days) |
 * | grace | check passes | verified |
 * | grace | the 7 days lapse | revoked |
 * | failed, revoked | a new challenge | pending |
 *
 * and, where the table is silent: a challenge in pending, verified or grace keeps the state (it
 * opens a method to try next); a passing check of a verified domain keeps it verified; a failing
 * check in grace keeps the window it had (no extension); a manual grant verifies from any state.
 */
export function transition(current: MachineState, event: MachineEvent, now: number): MachineState | undefined {
  switch (event.kind) {
    case 'challenge':
      return current.state === 'failed' || current.state === 'revoked'
        ? { ...current, state: 'pending', graceUntil: null }
        : current;
    case 'manual':
      return { state: 'verified', method: 'manual', graceUntil: null, verifiedAt: now, failureCount: 0 };
    case 'lapse':
      return current.state === 'grace' && current.graceUntil !== null && current.graceUntil <= now
        ? { ...current, state: 'revoked', graceUntil: null }
        : undefined;
    case 'check': {
      if (current.state === 'failed' || current.state === 'revoked') return undefined;
      if (event.passed)
        return {
          state: 'verified',
          method: event.method,
          graceUntil: null,
          verifiedAt: current.state === 'verified' && current.method === event.method ? current.verifiedAt : now,
          failureCount: 0,
        };
      const failureCount = current.failureCount + 1;
      if (current.state === 'pending') return { ...current, state: 'failed', failureCount };
      if (current.state === 'verified') return { ...current, state: 'grace', graceUntil: now + GRACE_MS, failureCount };
      return { ...current, failureCount }; // grace: the window keeps its end
    }
  }
}
