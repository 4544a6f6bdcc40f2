import { describe, expect, it } from 'vitest';
import {
  CHALLENGE_TTL_MS,
  GRACE_MS,
  challengeExpiresAt,
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
  challengedAt: T - 1000,
  ...extra,
});
const pass: MachineEvent = { kind: 'check', passed: true, method: 'dns_txt', tried: ['dns_txt'] };
const fail: MachineEvent = { kind: 'check', passed: false, method: 'dns_txt', tried: ['dns_txt'] };

describe('the verification state machine (docs/contract.md#verification)', () => {
  it('follows the contract table, row by row', () => {
    expect(transition(at('pending'), pass, T)?.state).toBe('verified');
    expect(transition(at('pending'), fail, T)).toMatchObject({ state: 'pending', failureCount: 1 });
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
    expect(transition(at('pending', { challengedAt: T - CHALLENGE_TTL_MS }), { kind: 'expire' }, T)?.state).toBe(
      'failed',
    );
  });

  it('a failed check keeps a pending challenge open, counting failures, until it expires 7 days after it was issued', () => {
    const open = at('pending', { challengedAt: T });
    expect(CHALLENGE_TTL_MS).toBe(7 * 24 * 60 * 60 * 1000);
    expect(challengeExpiresAt(open)).toBe(T + CHALLENGE_TTL_MS);
    const twice = transition(transition(open, fail, T + 1)!, fail, T + CHALLENGE_TTL_MS - 1);
    expect(twice).toMatchObject({ state: 'pending', failureCount: 2 });
    expect(transition(open, pass, T + CHALLENGE_TTL_MS - 1)?.state).toBe('verified');
    // Expired: a check no longer applies; the expiry makes it failed.
    expect(transition(open, fail, T + CHALLENGE_TTL_MS)).toBeUndefined();
    expect(transition(open, pass, T + CHALLENGE_TTL_MS)).toBeUndefined();
    expect(transition(open, { kind: 'expire' }, T + CHALLENGE_TTL_MS - 1)).toBeUndefined();
    expect(transition(open, { kind: 'expire' }, T + CHALLENGE_TTL_MS)).toMatchObject({
      state: 'failed',
      failureCount: 0,
    });
    // Only a pending challenge expires; a domain without a challenge never does.
    expect(challengeExpiresAt(at('verified', { challengedAt: T }))).toBeNull();
    expect(challengeExpiresAt(at('pending', { challengedAt: null }))).toBeNull();
    for (const state of ['verified', 'grace', 'failed', 'revoked'] as const)
      expect(transition(at(state, { challengedAt: T - CHALLENGE_TTL_MS }), { kind: 'expire' }, T)).toBeUndefined();
  });

  it('a failing check demotes a verification only when it read the proving method: a manual grant stays as it is', () => {
    const manual = at('verified', { method: 'manual', verifiedAt: T - 10 });
    expect(transition(manual, fail, T)).toEqual({ ...manual, failureCount: 1 });
    expect(transition(manual, pass, T)).toMatchObject({ state: 'verified', method: 'dns_txt', verifiedAt: T });
    const meta = at('verified', { method: 'meta_tag' });
    const upgradeFailed: MachineEvent = {
      kind: 'check',
      passed: false,
      method: 'dns_txt',
      tried: ['dns_txt', 'meta_tag'],
    };
    expect(transition(meta, upgradeFailed, T)).toMatchObject({ state: 'grace', graceUntil: T + GRACE_MS });
  });

  it('grace lasts exactly 7 days: not lapsed a millisecond before, lapsed at its end', () => {
    const metaFails: MachineEvent = { kind: 'check', passed: false, method: 'meta_tag', tried: ['meta_tag'] };
    const grace = transition(at('verified', { method: 'meta_tag' }), metaFails, T)!;
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
