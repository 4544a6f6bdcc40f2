import { describe, expect, it } from 'vitest';
import {
  groupSecret,
  leaveNotice,
  mailLinkProblem,
  newPasswordProblem,
  qrPath,
  secondFactorOf,
  takeNotice,
} from '../../src/console/account-text.js';

/** The account pages' pure helpers (src/console/account-text.ts). */
describe('account pages', () => {
  it('group a TOTP secret by four for typing', () => {
    expect(groupSecret('JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP')).toBe('JBSW Y3DP EHPK 3PXP JBSW Y3DP EHPK 3PXP');
    expect(groupSecret('ABCDEF')).toBe('ABCD EF');
    expect(groupSecret('')).toBe('');
  });

  it('send six digits as the authenticator code and anything else as a recovery code', () => {
    expect(secondFactorOf(' 123456 ')).toEqual({ totp: '123456' });
    expect(secondFactorOf('abcde-12345')).toEqual({ recoveryCode: 'abcde-12345' });
    expect(secondFactorOf('12345')).toEqual({ recoveryCode: '12345' });
  });

  it('say what to do for each refused mailed token, and nothing for other failures', () => {
    expect(mailLinkProblem('auth.mail_token_expired', 'verification')).toMatch(/expired.*password reset/);
    expect(mailLinkProblem('auth.mail_token_used', 'verification')).toMatch(/confirmed/);
    expect(mailLinkProblem('auth.mail_token_used', 'reset')).toMatch(/new reset mail/);
    expect(mailLinkProblem('auth.mail_token_invalid', 'transfer')).toMatch(/not valid.*owner/);
    expect(mailLinkProblem('validation.failed', 'reset')).toBeUndefined();
  });

  it('refuse two different new passwords', () => {
    expect(newPasswordProblem('a long password', 'a long passwore')).toMatch(/differ/);
    expect(newPasswordProblem('a long password', 'a long password')).toBeUndefined();
  });

  it('give a notice to the sign-in page once', () => {
    leaveNotice('Your password is changed.');
    expect(takeNotice()).toBe('Your password is changed.');
    expect(takeNotice()).toBeUndefined();
  });

  it('draw one unit square per dark module of a QR code, at its column and row', () => {
    expect(
      qrPath([
        [true, false],
        [false, true],
      ]),
    ).toBe('M0 0h1v1h-1zM1 1h1v1h-1z');
    expect(qrPath([[false]])).toBe('');
  });
});
