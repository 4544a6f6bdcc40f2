import { describe, expect, it } from 'vitest';
import {
  GRACE_MS,
  transition,
  type MachineEvent,
  type MachineState,
} from '../../../src/control/verification/state-machine.js';
import type { VerificationState } from '../../../src/control/records/website-info.js';

const T = Date.parse('2026-03-02T10:00:00Z');
const at = (state: VerificationState, extra: Partial<MachineState> = {}): MachineState => ({
  state,
  method: null,
  graceUntil: null,
  verifiedAt: null,
  failureCount: 0,
  ...extra,
});
const pass: MachineEvent = { kind: 'check', passed: true, method: 'dns_txt' };
const fail: MachineEvent = { kind: 'check', passed: false, method: 'dns_txt' };

describe('the verification state machine (docs/contract.md#verification)', () => {
  it('follows the contract table, row by row', () => {
    expect(transition(at('pending'), pass, T)?.state).toBe('verified');
    expect(transition(at('pending'), fail, T)?.state).toBe('failed');
    expect(transition(at('verified', { method: 'dns_txt' }), fail, T)).toMatchObject({
      state: 'grace',
      graceUntil: T + GRACE_MS,
    });
    expect(transition(at('grace', { method: 'dns_txt', graceUntil: T + 1000 }), pass, T)).toMatchObject({
      state: 'verified',
      graceUntil: null,
    });
    expect(transition(at('grace', { graceUntil: T }), { kind: 'lapse' }, T)?.state).toBe('revoked');
    expect(transition(at('failed'), { kind: 'challenge' }, T)?.state).toBe('pending');
    expect(transition(at('revoked', { method: 'dns_txt' }), { kind: 'challenge' }, T)?.state).toBe('pending');
  });

  it('grace lasts exactly 7 days: not lapsed a millisecond before, lapsed at its end', () => {
    const grace = transition(at('verified', { method: 'meta_tag' }), fail, T)!;
    expect(GRACE_MS).toBe(7 * 24 * 60 * 60 * 1000);
    expect(transition(grace, { kind: 'lapse' }, T + GRACE_MS - 1)).toBeUndefined();
    expect(transition(grace, { kind: 'lapse' }, T + GRACE_MS)).toMatchObject({ state: 'revoked', method: 'meta_tag' });
  });

  it('a failing check in grace keeps the window it had (no extension); counts failures; a pass resets them', () => {
    const grace = at('grace', { method: 'dns_txt', graceUntil: T + 5, failureCount: 1 });
    expect(transition(grace, fail, T + 3)).toMatchObject({ state: 'grace', graceUntil: T + 5, failureCount: 2 });
    expect(transition(grace, pass, T + 3)?.failureCount).toBe(0);
  });

  it('a check of a failed or revoked domain does not apply (a new challenge comes first); a lapse only ends grace', () => {
    for (const state of ['failed', 'revoked'] as const) expect(transition(at(state), pass, T)).toBeUndefined();
    for (const state of ['pending', 'verified', 'failed', 'revoked'] as const)
      expect(transition(at(state), { kind: 'lapse' }, T)).toBeUndefined();
  });

  it('a challenge keeps pending, verified and grace as they are; a passing check by another method changes the proving method', () => {
    for (const state of ['pending', 'verified', 'grace'] as const)
      expect(transition(at(state), { kind: 'challenge' }, T)?.state).toBe(state);
    const upgraded = transition(at('verified', { method: 'meta_tag', verifiedAt: T - 10 }), pass, T)!;
    expect(upgraded).toMatchObject({ state: 'verified', method: 'dns_txt', verifiedAt: T });
    expect(transition(at('verified', { method: 'dns_txt', verifiedAt: T - 10 }), pass, T)?.verifiedAt).toBe(T - 10);
  });

  it('a manual grant verifies from any state with method manual', () => {
    for (const state of ['pending', 'verified', 'failed', 'grace', 'revoked'] as const)
      expect(transition(at(state), { kind: 'manual' }, T)).toMatchObject({
        state: 'verified',
        method: 'manual',
        graceUntil: null,
      });
  });
});
