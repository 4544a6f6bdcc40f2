import { afterEach, describe, expect, it } from 'vitest';
import {
  bearer,
  failure,
  openAuthApp,
  PASSWORD,
  registerAndLogin,
  totpCode,
  type AuthApp,
  type SignedInUser,
} from './http-support.js';

const MINUTE = 60_000;
let a: AuthApp | undefined;
afterEach(async () => {
  await a?.close();
  a = undefined;
});

interface TwoFactorUser extends SignedInUser {
  secret: string;
  recoveryCodes: string[];
  auth: Record<string, string>;
}

/** A signed-in user with 2FA on; the clock then moves past the activation code's step. */
async function userWithTwoFactor(app: AuthApp, email = 'ada@example.com'): Promise<TwoFactorUser> {
  const user = await registerAndLogin(app, email);
  const auth = bearer(user.accessToken);
  const { secret } = (await app.post('/v1/auth/2fa/setup', undefined, auth)).json.data;
  const activated = await app.post('/v1/auth/2fa/activate', { code: totpCode(secret, app.clock.now()) }, auth);
  if (activated.status !== 200) throw new Error(`activate: ${activated.body}`);
  app.clock.advance(MINUTE);
  return { ...user, secret, recoveryCodes: activated.json.data.recoveryCodes, auth };
}

/** A code of the user's secret far from now: never in the ±1 step window. */
const wrongCode = (app: AuthApp, u: TwoFactorUser) => totpCode(u.secret, app.clock.now() + 60 * MINUTE);
const lockMails = async (app: AuthApp, email: string) =>
  (await app.mails()).filter((m) => m.includes(`To: ${email}\r\n`) && /Subject: .*locked/i.test(m));

describe('second factors cannot be guessed: 5 failed checks lock the factor for 15 minutes (issue 36, F3)', () => {
  it('2fa/disable: 4 wrong codes are 401 auth.mfa_invalid, the 5th locks (429 auth.factor_locked, Retry-After); while locked the right code is refused too and 2FA stays on; one mail tells the user; 15 minutes on the right code works', async () => {
    a = await openAuthApp();
    const u = await userWithTwoFactor(a);
    for (let i = 0; i < 4; i++)
      expect(failure(await a.post('/v1/auth/2fa/disable', { totp: wrongCode(a, u) }, u.auth))).toBe(
        '401 auth.mfa_invalid',
      );
    const locked = await a.post('/v1/auth/2fa/disable', { totp: wrongCode(a, u) }, u.auth);
    expect(failure(locked)).toBe('429 auth.factor_locked');
    expect(locked.headers['retry-after']).toBe('900');
    expect(locked.json.error.message).toMatch(/15 minutes/);

    a.clock.advance(5 * MINUTE);
    const stillLocked = await a.post('/v1/auth/2fa/disable', { totp: totpCode(u.secret, a.clock.now()) }, u.auth);
    expect(failure(stillLocked)).toBe('429 auth.factor_locked');
    expect(stillLocked.headers['retry-after']).toBe('600');
    expect(failure(await a.post('/v1/auth/2fa/disable', { recoveryCode: u.recoveryCodes[0] }, u.auth))).toBe(
      '429 auth.factor_locked',
    );
    expect((await a.get('/v1/auth/2fa', u.auth)).json.data).toMatchObject({
      enabled: true,
      recoveryCodesRemaining: 10,
    });
    expect(await lockMails(a, u.email)).toHaveLength(1);

    a.clock.advance(10 * MINUTE);
    // The access token of the sign-in expired meanwhile.
    const refreshed = await a.post('/v1/auth/refresh', { refreshToken: u.refreshToken });
    const auth = bearer(refreshed.json.data.accessToken);
    const unlocked = await a.post('/v1/auth/2fa/disable', { totp: totpCode(u.secret, a.clock.now()) }, auth);
    expect(unlocked.status, unlocked.body).toBe(204);
  });

  it('one counter for every route that takes a factor: wrong codes on disable, recovery-codes and login add up; a locked login second step is 429 too', async () => {
    a = await openAuthApp();
    const u = await userWithTwoFactor(a);
    const login = (factor: Record<string, string>) =>
      a!.post('/v1/auth/login', { email: u.email, password: PASSWORD, ...factor });
    expect(failure(await a.post('/v1/auth/2fa/disable', { totp: wrongCode(a, u) }, u.auth))).toBe(
      '401 auth.mfa_invalid',
    );
    expect(failure(await a.post('/v1/auth/2fa/recovery-codes', { recoveryCode: 'aaaaa-bbbbb' }, u.auth))).toBe(
      '401 auth.mfa_invalid',
    );
    expect(failure(await a.post('/v1/auth/2fa/recovery-codes', { totp: wrongCode(a, u) }, u.auth))).toBe(
      '401 auth.mfa_invalid',
    );
    expect(failure(await login({ totp: wrongCode(a, u) }))).toBe('401 auth.mfa_invalid');
    expect(failure(await login({ recoveryCode: 'aaaaa-ccccc' }))).toBe('429 auth.factor_locked');
    expect(failure(await login({ totp: totpCode(u.secret, a.clock.now()) }))).toBe('429 auth.factor_locked');
    // Without a code there is nothing to check: login still asks for one.
    expect(failure(await login({}))).toBe('401 auth.mfa_required');
    // A wrong password is still a wrong password: the lock says nothing to who lacks it.
    expect(
      failure(await a.post('/v1/auth/login', { email: u.email, password: 'not the password', totp: '123456' })),
    ).toBe('401 auth.invalid_credentials');
    a.clock.advance(15 * MINUTE);
    expect((await login({ totp: totpCode(u.secret, a.clock.now()) })).status).toBe(200);
  });

  it('a success resets the counter: 4 wrong, 1 right, 4 wrong is never locked', async () => {
    a = await openAuthApp();
    const u = await userWithTwoFactor(a);
    const wrong = async () =>
      expect(failure(await a!.post('/v1/auth/2fa/recovery-codes', { totp: wrongCode(a!, u) }, u.auth))).toBe(
        '401 auth.mfa_invalid',
      );
    for (let i = 0; i < 4; i++) await wrong();
    const fresh = await a.post('/v1/auth/2fa/recovery-codes', { recoveryCode: u.recoveryCodes[0] }, u.auth);
    expect(fresh.status).toBe(200);
    for (let i = 0; i < 4; i++) await wrong();
    expect(await lockMails(a, u.email)).toHaveLength(0);
  });

  it('activation codes count too, and the counter is kept in control.sqlite (factor_lockouts)', async () => {
    a = await openAuthApp();
    const user = await registerAndLogin(a, 'ada@example.com');
    const auth = bearer(user.accessToken);
    const { secret } = (await a.post('/v1/auth/2fa/setup', undefined, auth)).json.data;
    const far = () => totpCode(secret, a!.clock.now() + 60 * MINUTE);
    for (let i = 0; i < 4; i++)
      expect(failure(await a.post('/v1/auth/2fa/activate', { code: far() }, auth))).toBe('401 auth.mfa_invalid');
    expect(
      a.services.controlDb
        .prepare('SELECT failures, locked_until FROM factor_lockouts WHERE user_id = ?')
        .get(user.userId),
    ).toEqual({ failures: 4, locked_until: null });
    expect(failure(await a.post('/v1/auth/2fa/activate', { code: far() }, auth))).toBe('429 auth.factor_locked');
    expect(
      a.services.controlDb
        .prepare('SELECT locked_until FROM factor_lockouts WHERE user_id = ?')
        .pluck()
        .get(user.userId),
    ).toBe(a.clock.now() + 15 * MINUTE);
  });
});
