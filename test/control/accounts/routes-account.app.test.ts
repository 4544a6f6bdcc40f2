import { afterEach, describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import { REDACTED_PATHS } from '../../../src/platform/http/create-app.js';
import {
  bearer,
  failure,
  mailedToken,
  openAuthApp,
  PASSWORD,
  refreshCookieOf,
  registerAndLogin,
  totpCode,
  type AuthApp,
} from './http-support.js';

const apps: AuthApp[] = [];
afterEach(async () => {
  for (const a of apps.splice(0)) await a.close();
});

async function open(settings: Parameters<typeof openAuthApp>[0] = {}): Promise<AuthApp> {
  const a = await openAuthApp(settings);
  apps.push(a);
  return a;
}

const NEW_PASSWORD = 'a-new-and-longer-password';

describe('POST /v1/auth/password/change, /forgot and /reset', () => {
  it('change (204) sets the new password and ends every session, the caller included; the old password no longer signs in', async () => {
    const a = await open();
    const user = await registerAndLogin(a, 'ada@example.com');
    const res = await a.post(
      '/v1/auth/password/change',
      { currentPassword: PASSWORD, newPassword: NEW_PASSWORD },
      bearer(user.accessToken),
    );
    expect(res.status).toBe(204);
    expect(refreshCookieOf(res)!.attributes['max-age']).toBe('0');
    expect(failure(await a.get('/v1/auth/me', bearer(user.accessToken)))).toBe('401 auth.unauthenticated');
    expect(failure(await a.post('/v1/auth/login', { email: user.email, password: PASSWORD }))).toBe(
      '401 auth.invalid_credentials',
    );
    expect((await a.post('/v1/auth/login', { email: user.email, password: NEW_PASSWORD })).status).toBe(200);
  });

  it('change: a wrong current password is 401 auth.invalid_credentials, the same or a short new one 422, no token 401 before the body is looked at', async () => {
    const a = await open();
    const user = await registerAndLogin(a, 'ada@example.com');
    expect(
      failure(
        await a.post(
          '/v1/auth/password/change',
          { currentPassword: 'not-the-password', newPassword: NEW_PASSWORD },
          bearer(user.accessToken),
        ),
      ),
    ).toBe('401 auth.invalid_credentials');
    expect(
      failure(
        await a.post(
          '/v1/auth/password/change',
          { currentPassword: PASSWORD, newPassword: PASSWORD },
          bearer(user.accessToken),
        ),
      ),
    ).toBe('422 validation.failed');
    expect(
      failure(
        await a.post(
          '/v1/auth/password/change',
          { currentPassword: PASSWORD, newPassword: 'short' },
          bearer(user.accessToken),
        ),
      ),
    ).toBe('422 validation.failed');
    expect(failure(await a.post('/v1/auth/password/change', { nonsense: true }))).toBe('401 auth.unauthenticated');
    expect((await a.get('/v1/auth/me', bearer(user.accessToken))).status).toBe(200);
  });

  it('forgot answers 202 alike for an account and for an unknown address (no enumeration); only the account gets a mail; a bad email is 422', async () => {
    const a = await open();
    await registerAndLogin(a, 'ada@example.com');
    const known = await a.post('/v1/auth/password/forgot', { email: 'ada@example.com' });
    const unknown = await a.post('/v1/auth/password/forgot', { email: 'nobody@example.com' });
    expect([known.status, unknown.status]).toEqual([202, 202]);
    expect(unknown.json.data).toEqual(known.json.data);
    expect(known.json.data).toEqual({ status: 'accepted' });
    const mails = await a.mails();
    expect(mails.filter((m) => m.includes('Subject: Reset your password'))).toHaveLength(1);
    expect(mails.some((m) => m.includes('nobody@example.com'))).toBe(false);
    expect(failure(await a.post('/v1/auth/password/forgot', { email: 'not-an-email' }))).toBe('422 validation.failed');
  });

  it('reset (204) with the mailed token sets the password and ends every session; the token works once (410 auth.mail_token_used), an unknown one is 400, a short password 422', async () => {
    const a = await open();
    const user = await registerAndLogin(a, 'ada@example.com');
    await a.post('/v1/auth/password/forgot', { email: user.email });
    const token = await mailedToken(a, user.email, 'Reset your password');
    expect(failure(await a.post('/v1/auth/password/reset', { token, password: 'short' }))).toBe(
      '422 validation.failed',
    );
    expect((await a.post('/v1/auth/password/reset', { token, password: NEW_PASSWORD })).status).toBe(204);
    expect(failure(await a.get('/v1/auth/me', bearer(user.accessToken)))).toBe('401 auth.unauthenticated');
    expect((await a.post('/v1/auth/login', { email: user.email, password: NEW_PASSWORD })).status).toBe(200);
    expect(failure(await a.post('/v1/auth/password/reset', { token, password: NEW_PASSWORD }))).toBe(
      '410 auth.mail_token_used',
    );
    expect(failure(await a.post('/v1/auth/password/reset', { token: 'B'.repeat(43), password: NEW_PASSWORD }))).toBe(
      '400 auth.mail_token_invalid',
    );
  });

  it('reset: a token past its hour is 410 auth.mail_token_expired', async () => {
    const a = await open();
    const user = await registerAndLogin(a, 'ada@example.com');
    await a.post('/v1/auth/password/forgot', { email: user.email });
    const token = await mailedToken(a, user.email, 'Reset your password');
    a.clock.advance(3600_000 + 1);
    expect(failure(await a.post('/v1/auth/password/reset', { token, password: NEW_PASSWORD }))).toBe(
      '410 auth.mail_token_expired',
    );
  });
});

describe('the /v1/auth/2fa routes', () => {
  it('status, setup, activate (10 recovery codes), recovery-codes (replaced), disable: each answers as documented', async () => {
    const a = await open();
    const user = await registerAndLogin(a, 'ada@example.com');
    const auth = bearer(user.accessToken);
    expect((await a.get('/v1/auth/2fa', auth)).json.data).toEqual({
      enabled: false,
      pending: false,
      recoveryCodesRemaining: 0,
    });
    const setup = await a.post('/v1/auth/2fa/setup', undefined, auth);
    expect(setup.status).toBe(200);
    expect(setup.json.data).toEqual({
      secret: expect.stringMatching(/^[A-Z2-7]{32}$/),
      otpauthUri: expect.stringMatching(/^otpauth:\/\/totp\/nodectl:ada%40example\.com\?/),
    });
    expect((await a.get('/v1/auth/2fa', auth)).json.data).toEqual({
      enabled: false,
      pending: true,
      recoveryCodesRemaining: 0,
    });
    const { secret } = setup.json.data;
    const activated = await a.post('/v1/auth/2fa/activate', { code: totpCode(secret, a.clock.now()) }, auth);
    expect(activated.status).toBe(200);
    expect(activated.json.data.recoveryCodes).toHaveLength(10);
    expect((await a.get('/v1/auth/2fa', auth)).json.data).toEqual({
      enabled: true,
      pending: false,
      recoveryCodesRemaining: 10,
    });
    a.clock.advance(30_000);
    const replaced = await a.post('/v1/auth/2fa/recovery-codes', { totp: totpCode(secret, a.clock.now()) }, auth);
    expect(replaced.status).toBe(200);
    expect(replaced.json.data.recoveryCodes).toHaveLength(10);
    expect(
      failure(await a.post('/v1/auth/2fa/disable', { recoveryCode: activated.json.data.recoveryCodes[0] }, auth)),
    ).toBe('401 auth.mfa_invalid');
    const disabled = await a.post('/v1/auth/2fa/disable', { recoveryCode: replaced.json.data.recoveryCodes[0] }, auth);
    expect(disabled.status).toBe(204);
    expect((await a.get('/v1/auth/2fa', auth)).json.data).toEqual({
      enabled: false,
      pending: false,
      recoveryCodesRemaining: 0,
    });
  });

  it('activate before setup and disable or regenerate while off are 409 auth.mfa_not_enrolled; setup or activate while on 409 auth.mfa_already_enabled; a wrong code 401 auth.mfa_invalid; no factor 422', async () => {
    const a = await open();
    const user = await registerAndLogin(a, 'ada@example.com');
    const auth = bearer(user.accessToken);
    expect(failure(await a.post('/v1/auth/2fa/activate', { code: '123456' }, auth))).toBe('409 auth.mfa_not_enrolled');
    expect(failure(await a.post('/v1/auth/2fa/disable', { totp: '123456' }, auth))).toBe('409 auth.mfa_not_enrolled');
    expect(failure(await a.post('/v1/auth/2fa/recovery-codes', { totp: '123456' }, auth))).toBe(
      '409 auth.mfa_not_enrolled',
    );
    const { secret } = (await a.post('/v1/auth/2fa/setup', undefined, auth)).json.data;
    const good = totpCode(secret, a.clock.now());
    const wrong = good === '000000' ? '111111' : '000000';
    expect(failure(await a.post('/v1/auth/2fa/activate', { code: wrong }, auth))).toBe('401 auth.mfa_invalid');
    expect(failure(await a.post('/v1/auth/2fa/activate', { code: '12345' }, auth))).toBe('422 validation.failed');
    expect((await a.post('/v1/auth/2fa/activate', { code: good }, auth)).status).toBe(200);
    expect(failure(await a.post('/v1/auth/2fa/setup', undefined, auth))).toBe('409 auth.mfa_already_enabled');
    expect(failure(await a.post('/v1/auth/2fa/activate', { code: good }, auth))).toBe('409 auth.mfa_already_enabled');
    expect(failure(await a.post('/v1/auth/2fa/disable', {}, auth))).toBe('422 validation.failed');
    expect(failure(await a.post('/v1/auth/2fa/disable', { totp: wrong }, auth))).toBe('401 auth.mfa_invalid');
  });

  it('every 2fa route refuses an anonymous caller with 401 auth.unauthenticated', async () => {
    const a = await open();
    expect(failure(await a.get('/v1/auth/2fa'))).toBe('401 auth.unauthenticated');
    for (const url of [
      '/v1/auth/2fa/setup',
      '/v1/auth/2fa/activate',
      '/v1/auth/2fa/disable',
      '/v1/auth/2fa/recovery-codes',
    ])
      expect(failure(await a.post(url, {}))).toBe('401 auth.unauthenticated');
  });
});

describe('rate limits of login, register, forgot-password and Google sign-in (docs/contract.md#rate-limits)', () => {
  const limited = [
    { route: 'login', body: (email: string) => ({ email, password: 'wrong-password!' }) },
    { route: 'register', body: (email: string) => ({ email, password: PASSWORD, orgName: 'Org' }) },
    { route: 'password/forgot', body: (email: string) => ({ email }) },
  ];

  for (const { route, body } of limited) {
    it(`${route}: the 10th request from one address passes, the 11th is 429 quota.rate_limited with Retry-After; the next minute passes again`, async () => {
      const a = await open({ authAddressRateLimitPerMinute: 10 });
      for (let i = 1; i <= 10; i++) {
        const res = await a.post(`/v1/auth/${route}`, body(`user${i}@example.com`), {}, '192.0.2.7');
        expect(res.status, `request ${i}`).not.toBe(429);
      }
      // The RateLimit headers show the auth rule (10), not the general one.
      const fresh = await a.post(`/v1/auth/${route}`, body('fresh@example.com'), {}, '192.0.2.9');
      expect([fresh.headers['ratelimit-limit'], fresh.headers['ratelimit-remaining']]).toEqual(['10', '9']);
      const over = await a.post(`/v1/auth/${route}`, body('user11@example.com'), {}, '192.0.2.7');
      expect([over.headers['ratelimit-limit'], over.headers['ratelimit-remaining']]).toEqual(['10', '0']);
      expect(failure(over)).toBe('429 quota.rate_limited');
      expect(Number(over.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(over.headers['retry-after'])).toBeLessThanOrEqual(60);
      // Another address is not limited by this one.
      expect((await a.post(`/v1/auth/${route}`, body('user12@example.com'), {}, '192.0.2.8')).status).not.toBe(429);
      a.clock.advance(60_000);
      expect((await a.post(`/v1/auth/${route}`, body('user13@example.com'), {}, '192.0.2.7')).status).not.toBe(429);
    });

    it(`${route}: the 10th request for one email passes, the 11th is 429 even from another address`, async () => {
      const a = await open();
      for (let i = 1; i <= 10; i++) {
        const res = await a.post(`/v1/auth/${route}`, body('target@example.com'), {}, `198.51.100.${i}`);
        expect(res.status, `request ${i}`).not.toBe(429);
      }
      expect(failure(await a.post(`/v1/auth/${route}`, body('TARGET@example.com'), {}, '198.51.100.11'))).toBe(
        '429 quota.rate_limited',
      );
      expect((await a.post(`/v1/auth/${route}`, body('other@example.com'), {}, '198.51.100.12')).status).not.toBe(429);
    });
  }

  it('google: the 10th sign-in attempt from one address passes to the token check, the 11th is 429 quota.rate_limited; another address is not limited', async () => {
    const a = await open({ authAddressRateLimitPerMinute: 10 });
    const attempt = (address: string) => a.post('/v1/auth/google', { idToken: 'not.a.token' }, {}, address);
    for (let i = 1; i <= 10; i++) expect((await attempt('203.0.113.5')).status, `request ${i}`).not.toBe(429);
    const over = await attempt('203.0.113.5');
    expect(failure(over)).toBe('429 quota.rate_limited');
    expect(over.headers['ratelimit-limit']).toBe('10');
    expect((await attempt('203.0.113.6')).status).not.toBe(429);
  });

  it('the limits are settings (authRateLimitPerMinute per email, authAddressRateLimitPerMinute per address); a body that fails its schema is not counted', async () => {
    const a = await open({ authRateLimitPerMinute: 2, authAddressRateLimitPerMinute: 4 });
    for (let i = 0; i < 5; i++)
      expect(failure(await a.post('/v1/auth/login', { email: 'not-an-email', password: 'x' }))).toBe(
        '422 validation.failed',
      );
    await a.post('/v1/auth/login', { email: 'a@example.com', password: 'x' });
    await a.post('/v1/auth/login', { email: 'a@example.com', password: 'x' });
    expect(failure(await a.post('/v1/auth/login', { email: 'a@example.com', password: 'x' }))).toBe(
      '429 quota.rate_limited',
    );
    // The email's limit is spent, not the address's: another account from the same address passes, up to 4.
    expect((await a.post('/v1/auth/login', { email: 'b@example.com', password: 'x' })).status).toBe(401);
    expect(failure(await a.post('/v1/auth/login', { email: 'c@example.com', password: 'x' }))).toBe(
      '429 quota.rate_limited',
    );
  });
});

describe('log redaction (REDACTED_PATHS of the HTTP app)', () => {
  it('no password, token, code or cookie of the auth routes reaches a log line, while err.code of a logged error stays', () => {
    const lines: string[] = [];
    // The logger options the daemon passes to Fastify (src/daemon/server.ts).
    const log = Fastify({
      logger: {
        level: 'info',
        redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
        stream: { write: (line: string) => void lines.push(line) },
      },
    }).log;
    const body = {
      password: 'secret-password-1',
      currentPassword: 'secret-password-2',
      newPassword: 'secret-password-3',
      idToken: 'secret-id-token',
      recoveryCode: 'secret-recovery',
      totp: '918273',
      code: '564738',
      refreshToken: 'secret-refresh',
      accessToken: 'secret-access',
      token: 'secret-mail-token',
    };
    log.info({ body }, 'a body');
    log.info(
      {
        req: { body, headers: { cookie: 'svc_refresh=secret-cookie', authorization: 'Bearer secret-bearer' } },
        res: { headers: { 'set-cookie': 'svc_refresh=secret-set-cookie' } },
      },
      'a request',
    );
    const error = Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
    log.error({ err: error }, 'an error');
    const output = lines.join('');
    for (const secret of [...Object.values(body), 'secret-cookie', 'secret-bearer', 'secret-set-cookie'])
      expect(output, secret).not.toContain(secret);
    expect(output).toContain('SQLITE_BUSY');
  });
});
