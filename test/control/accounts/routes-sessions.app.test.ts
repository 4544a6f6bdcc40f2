import { generateKeyPairSync } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createLocalJWKSet, decodeProtectedHeader, exportJWK, jwtVerify, SignJWT } from 'jose';
import { createApiKey } from '../../../src/control/records/api-keys.js';
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
import { serveJson } from './support.js';

const apps: AuthApp[] = [];
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
  for (const a of apps.splice(0)) await a.close();
});

async function open(settings: Parameters<typeof openAuthApp>[0] = {}): Promise<AuthApp> {
  const a = await openAuthApp(settings);
  apps.push(a);
  return a;
}

const THIRTY_DAYS_S = 30 * 24 * 3600;

describe('POST /v1/auth/register and /verify-email', () => {
  it('register answers 201 {userId, emailVerificationSent}; the registrant owns a new organization; the mailed token verifies once (200, then 410 auth.mail_token_used)', async () => {
    const a = await open();
    const res = await a.post('/v1/auth/register', {
      email: 'Ada@Example.com',
      password: PASSWORD,
      orgName: 'Analytical Engines',
    });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      ok: true,
      data: { userId: expect.stringMatching(/^usr_/), emailVerificationSent: true },
    });
    const token = await mailedToken(a, 'ada@example.com', 'Confirm your email address');
    const verified = await a.post('/v1/auth/verify-email', { token });
    expect(verified.status).toBe(200);
    expect(verified.json.data).toEqual({
      userId: expect.stringMatching(/^usr_/),
      email: 'ada@example.com',
      emailVerified: true,
    });
    expect(failure(await a.post('/v1/auth/verify-email', { token }))).toBe('410 auth.mail_token_used');
    const login = await a.post('/v1/auth/login', { email: 'ada@example.com', password: PASSWORD });
    const me = await a.get('/v1/auth/me', bearer(login.json.data.accessToken));
    expect(me.json.data).toMatchObject({
      user: { email: 'ada@example.com', emailVerified: true },
      organizations: [{ name: 'Analytical Engines', role: 'organization_owner' }],
    });
  });

  it('register refuses a short password, a bad email, an unknown field and a missing body (422 validation.failed naming the field); a taken email answers 201 like a new one', async () => {
    const a = await open();
    const fields = async (body: unknown) => {
      const res = await a.post('/v1/auth/register', body);
      expect(failure(res)).toBe('422 validation.failed');
      return res.json.error.details.fields.map((f: { path: string }) => f.path);
    };
    expect(await fields({ email: 'ada@example.com', password: 'short', orgName: 'X' })).toEqual(['password']);
    expect(await fields({ email: 'nope', password: PASSWORD, orgName: 'X' })).toEqual(['email']);
    expect(await fields({ email: 'ada@example.com', password: PASSWORD, orgName: 'X', admin: true })).toEqual([
      '(root)',
    ]);
    expect(await fields(undefined)).toEqual(['(root)']);
    expect(
      (await a.post('/v1/auth/register', { email: 'ada@example.com', password: PASSWORD, orgName: 'X' })).status,
    ).toBe(201);
    expect(
      (await a.post('/v1/auth/register', { email: 'ADA@example.com', password: PASSWORD, orgName: 'Y' })).status,
    ).toBe(201);
  });

  it('verify-email: an unknown token is 400 auth.mail_token_invalid, an expired one 410 auth.mail_token_expired, none 422', async () => {
    const a = await open();
    await a.post('/v1/auth/register', { email: 'ada@example.com', password: PASSWORD, orgName: 'X' });
    const token = await mailedToken(a, 'ada@example.com', 'Confirm your email address');
    expect(failure(await a.post('/v1/auth/verify-email', { token: 'A'.repeat(43) }))).toBe(
      '400 auth.mail_token_invalid',
    );
    expect(failure(await a.post('/v1/auth/verify-email', {}))).toBe('422 validation.failed');
    a.clock.advance(24 * 3600_000 + 1);
    expect(failure(await a.post('/v1/auth/verify-email', { token }))).toBe('410 auth.mail_token_expired');
  });
});

describe('POST /v1/auth/login and the svc_refresh cookie', () => {
  it('answers {accessToken, tokenType, expiresIn, refreshToken, user} and sets svc_refresh HttpOnly, SameSite=Strict, Path=/v1/auth, Max-Age of the session, not Secure on plain-http loopback', async () => {
    const a = await open();
    const { userId } = await registerAndLogin(a, 'ada@example.com');
    const res = await a.post('/v1/auth/login', { email: 'ada@example.com', password: PASSWORD });
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({
      accessToken: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      tokenType: 'Bearer',
      expiresIn: 900,
      refreshToken: expect.stringMatching(/^[\w-]{43}$/),
      user: {
        id: userId,
        email: 'ada@example.com',
        emailVerified: true,
        mfaEnabled: false,
        createdAt: expect.any(String),
      },
    });
    const cookie = refreshCookieOf(res)!;
    expect(cookie.value).toBe(res.json.data.refreshToken);
    expect(cookie.attributes).toEqual({
      'max-age': String(THIRTY_DAYS_S),
      path: '/v1/auth',
      httponly: true,
      samesite: 'Strict',
    });
  });

  it('sets Secure when the public base URL is https (behind a TLS proxy) or not on loopback', async () => {
    for (const publicBaseUrl of ['https://api.example.test', 'http://api.example.test']) {
      const a = await open({ publicBaseUrl });
      await registerAndLogin(a, 'ada@example.com');
      const res = await a.post('/v1/auth/login', { email: 'ada@example.com', password: PASSWORD });
      expect(refreshCookieOf(res)!.attributes.secure, publicBaseUrl).toBe(true);
    }
  });

  it('a wrong password and an unknown email give the same 401 auth.invalid_credentials; a bad body is 422', async () => {
    const a = await open();
    await registerAndLogin(a, 'ada@example.com');
    const wrong = await a.post('/v1/auth/login', { email: 'ada@example.com', password: 'not the password' });
    const unknown = await a.post('/v1/auth/login', { email: 'nobody@example.com', password: PASSWORD });
    expect(failure(wrong)).toBe('401 auth.invalid_credentials');
    expect(unknown.json.error.message).toBe(wrong.json.error.message);
    expect(failure(unknown)).toBe('401 auth.invalid_credentials');
    expect(refreshCookieOf(wrong)).toBeUndefined();
    expect(failure(await a.post('/v1/auth/login', { email: 'ada@example.com' }))).toBe('422 validation.failed');
    expect(
      failure(
        await a.post('/v1/auth/login', {
          email: 'ada@example.com',
          password: PASSWORD,
          totp: '123456',
          recoveryCode: 'abcde-fghij',
        }),
      ),
    ).toBe('422 validation.failed');
  });

  it('with 2FA on: no code is 401 auth.mfa_required (details.mfa "totp"), a wrong code 401 auth.mfa_invalid, the next code or a recovery code signs in', async () => {
    const a = await open();
    const user = await registerAndLogin(a, 'ada@example.com');
    const { secret } = (await a.post('/v1/auth/2fa/setup', undefined, bearer(user.accessToken))).json.data;
    const { recoveryCodes } = (
      await a.post('/v1/auth/2fa/activate', { code: totpCode(secret, a.clock.now()) }, bearer(user.accessToken))
    ).json.data;
    const required = await a.post('/v1/auth/login', { email: user.email, password: PASSWORD });
    expect(failure(required)).toBe('401 auth.mfa_required');
    expect(required.json.error.details).toEqual({ mfa: 'totp' });
    // The code just used to activate is spent.
    expect(
      failure(
        await a.post('/v1/auth/login', {
          email: user.email,
          password: PASSWORD,
          totp: totpCode(secret, a.clock.now()),
        }),
      ),
    ).toBe('401 auth.mfa_invalid');
    a.clock.advance(30_000);
    const withCode = await a.post('/v1/auth/login', {
      email: user.email,
      password: PASSWORD,
      totp: totpCode(secret, a.clock.now()),
    });
    expect(withCode.status).toBe(200);
    expect(withCode.json.data.user.mfaEnabled).toBe(true);
    expect(
      (await a.post('/v1/auth/login', { email: user.email, password: PASSWORD, recoveryCode: recoveryCodes[0] }))
        .status,
    ).toBe(200);
    expect(
      failure(
        await a.post('/v1/auth/login', { email: user.email, password: PASSWORD, recoveryCode: recoveryCodes[0] }),
      ),
    ).toBe('401 auth.mfa_invalid');
  });
});

describe('POST /v1/auth/google', () => {
  const CLIENT_ID = 'client-123.apps.googleusercontent.com';

  async function withFakeGoogle() {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const jwk = { ...(await exportJWK(publicKey)), kid: 'g1', alg: 'RS256', use: 'sig' };
    const server = await serveJson(() => ({ keys: [jwk] }));
    cleanups.push(() => server.close());
    const a = await open({ googleClientId: CLIENT_ID, googleJwksUrl: server.url });
    const idToken = (claims: Record<string, unknown> = {}) =>
      new SignJWT({ email: 'ada@example.com', email_verified: true, ...claims })
        .setProtectedHeader({ alg: 'RS256', kid: 'g1' })
        .setIssuer('https://accounts.google.com')
        .setAudience(CLIENT_ID)
        .setSubject('google-ada')
        .setIssuedAt(Math.floor(a.clock.now() / 1000))
        .setExpirationTime(Math.floor(a.clock.now() / 1000) + 3600)
        .sign(privateKey);
    return { a, idToken };
  }

  it('answers a session like login (body and cookie) for a Google-verified email', async () => {
    const { a, idToken } = await withFakeGoogle();
    const res = await a.post('/v1/auth/google', { idToken: await idToken() });
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({
      tokenType: 'Bearer',
      expiresIn: 900,
      user: { email: 'ada@example.com', emailVerified: true },
    });
    expect(refreshCookieOf(res)!.value).toBe(res.json.data.refreshToken);
    expect((await a.get('/v1/auth/me', bearer(res.json.data.accessToken))).status).toBe(200);
  });

  it('an unverified Google email is 403 auth.idp_email_unverified, a bad token 401 auth.idp_token_invalid, a missing one 422', async () => {
    const { a, idToken } = await withFakeGoogle();
    expect(failure(await a.post('/v1/auth/google', { idToken: await idToken({ email_verified: false }) }))).toBe(
      '403 auth.idp_email_unverified',
    );
    expect(failure(await a.post('/v1/auth/google', { idToken: 'not.a.token' }))).toBe('401 auth.idp_token_invalid');
    expect(failure(await a.post('/v1/auth/google', {}))).toBe('422 validation.failed');
  });

  it('without googleClientId it is 503 auth.idp_unconfigured', async () => {
    const a = await open();
    expect(failure(await a.post('/v1/auth/google', { idToken: 'a.b.c' }))).toBe('503 auth.idp_unconfigured');
  });
});

describe('POST /v1/auth/refresh', () => {
  it('takes the cookie alone or {refreshToken}; rotates on every use (new token and cookie), the access token works', async () => {
    const a = await open();
    const user = await registerAndLogin(a, 'ada@example.com');
    const byCookie = await a.post('/v1/auth/refresh', undefined, { cookie: `svc_refresh=${user.refreshToken}` });
    expect(byCookie.status).toBe(200);
    const second = byCookie.json.data.refreshToken;
    expect(second).not.toBe(user.refreshToken);
    expect(refreshCookieOf(byCookie)!.value).toBe(second);
    const byBody = await a.post('/v1/auth/refresh', { refreshToken: second });
    expect(byBody.status).toBe(200);
    expect(byBody.json.data).toMatchObject({ tokenType: 'Bearer', expiresIn: 900, user: { id: user.userId } });
    expect((await a.get('/v1/auth/me', bearer(byBody.json.data.accessToken))).status).toBe(200);
    // An empty body object with the cookie is the cookie flow too.
    expect(
      (await a.post('/v1/auth/refresh', {}, { cookie: `svc_refresh=${byBody.json.data.refreshToken}` })).status,
    ).toBe(200);
  });

  it('a rotated token presented again is 401 auth.refresh_reused and ends the session (its newest token and access token fail; the cookie is cleared)', async () => {
    const a = await open();
    const user = await registerAndLogin(a, 'ada@example.com');
    const rotated = (await a.post('/v1/auth/refresh', { refreshToken: user.refreshToken })).json.data;
    const reused = await a.post('/v1/auth/refresh', undefined, { cookie: `svc_refresh=${user.refreshToken}` });
    expect(failure(reused)).toBe('401 auth.refresh_reused');
    expect(refreshCookieOf(reused)!.attributes['max-age']).toBe('0');
    expect(failure(await a.post('/v1/auth/refresh', { refreshToken: rotated.refreshToken }))).toBe(
      '401 auth.unauthenticated',
    );
    expect(failure(await a.get('/v1/auth/me', bearer(rotated.accessToken)))).toBe('401 auth.unauthenticated');
  });

  it('no token, an unknown one or a malformed body is refused (401 auth.unauthenticated, 422)', async () => {
    const a = await open();
    expect(failure(await a.post('/v1/auth/refresh'))).toBe('401 auth.unauthenticated');
    expect(failure(await a.post('/v1/auth/refresh', { refreshToken: 'x'.repeat(43) }))).toBe(
      '401 auth.unauthenticated',
    );
    expect(failure(await a.post('/v1/auth/refresh', { refreshToken: 42 }))).toBe('422 validation.failed');
  });
});

describe('POST /v1/auth/logout, /logout-all and GET /v1/auth/me', () => {
  it('logout (204) ends the caller session only: its access and refresh tokens fail at once, another session lives; the cookie is cleared', async () => {
    const a = await open();
    const user = await registerAndLogin(a, 'ada@example.com');
    const other = (await a.post('/v1/auth/login', { email: user.email, password: PASSWORD })).json.data;
    const res = await a.post('/v1/auth/logout', undefined, bearer(user.accessToken));
    expect(res.status).toBe(204);
    expect(res.body).toBe('');
    expect(refreshCookieOf(res)!.attributes['max-age']).toBe('0');
    expect(failure(await a.get('/v1/auth/me', bearer(user.accessToken)))).toBe('401 auth.unauthenticated');
    expect(failure(await a.post('/v1/auth/refresh', { refreshToken: user.refreshToken }))).toBe(
      '401 auth.unauthenticated',
    );
    expect((await a.get('/v1/auth/me', bearer(other.accessToken))).status).toBe(200);
  });

  it('logout-all (204) ends every session of the user: each earlier access token fails at once', async () => {
    const a = await open();
    const user = await registerAndLogin(a, 'ada@example.com');
    const other = (await a.post('/v1/auth/login', { email: user.email, password: PASSWORD })).json.data;
    expect((await a.post('/v1/auth/logout-all', undefined, bearer(other.accessToken))).status).toBe(204);
    for (const token of [user.accessToken, other.accessToken])
      expect(failure(await a.get('/v1/auth/me', bearer(token)))).toBe('401 auth.unauthenticated');
    for (const token of [user.refreshToken, other.refreshToken])
      expect(failure(await a.post('/v1/auth/refresh', { refreshToken: token }))).toBe('401 auth.unauthenticated');
  });

  it('me (200) answers the user and its memberships; without a token 401, with an API key 403 auth.forbidden, with a forged or expired JWT 401', async () => {
    const a = await open();
    const user = await registerAndLogin(a, 'ada@example.com');
    const me = await a.get('/v1/auth/me', bearer(user.accessToken));
    expect(me.status).toBe(200);
    expect(me.json.data).toMatchObject({
      user: { id: user.userId, email: user.email, mfaEnabled: false },
      organizations: [{ role: 'organization_owner' }],
    });
    expect(failure(await a.get('/v1/auth/me'))).toBe('401 auth.unauthenticated');
    const key = createApiKey(
      a.services.controlDb,
      { organizationId: me.json.data.organizations[0].id, role: 'organization_admin' },
      a.clock.now(),
    ).key;
    expect(failure(await a.get('/v1/auth/me', bearer(key)))).toBe('403 auth.forbidden');
    expect(failure(await a.get('/v1/auth/me', { 'x-api-key': key }))).toBe('403 auth.forbidden');
    const [header, payload] = user.accessToken.split('.');
    expect(failure(await a.get('/v1/auth/me', bearer(`${header}.${payload}.${'A'.repeat(86)}`)))).toBe(
      '401 auth.unauthenticated',
    );
    expect(failure(await a.get('/v1/auth/me', bearer(`${header}.${payload}.`)))).toBe('401 auth.unauthenticated');
    a.clock.advance(15 * 60_000 + 1000);
    const expired = await a.get('/v1/auth/me', bearer(user.accessToken));
    expect(failure(expired)).toBe('401 auth.unauthenticated');
    expect(expired.json.error.message).toMatch(/refresh/);
  });

  it('logout and logout-all refuse an anonymous caller (401) and an API key (403 auth.forbidden)', async () => {
    const a = await open();
    const user = await registerAndLogin(a, 'ada@example.com');
    const orgId = (await a.get('/v1/auth/me', bearer(user.accessToken))).json.data.organizations[0].id;
    const key = createApiKey(
      a.services.controlDb,
      { organizationId: orgId, role: 'organization_admin' },
      a.clock.now(),
    ).key;
    for (const url of ['/v1/auth/logout', '/v1/auth/logout-all']) {
      expect(failure(await a.post(url))).toBe('401 auth.unauthenticated');
      expect(failure(await a.post(url, undefined, bearer(key)))).toBe('403 auth.forbidden');
    }
  });
});

describe('GET /.well-known/jwks.json', () => {
  it('serves the public keys (no private parts, short cache) that verify an issued access token by its kid', async () => {
    const a = await open();
    const user = await registerAndLogin(a, 'ada@example.com');
    const res = await a.get('/.well-known/jwks.json');
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=60');
    const jwks = res.json as { keys: Array<Record<string, unknown>> };
    expect(jwks.keys.length).toBeGreaterThanOrEqual(1);
    for (const key of jwks.keys) {
      expect(key).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig', kid: expect.any(String) });
      expect(key).not.toHaveProperty('d');
    }
    expect(jwks.keys.map((k) => k.kid)).toContain(decodeProtectedHeader(user.accessToken).kid);
    const { payload } = await jwtVerify(user.accessToken, createLocalJWKSet(jwks as never), {
      currentDate: new Date(a.clock.now()),
      audience: 'nodectl',
      issuer: 'http://127.0.0.1:8787',
    });
    expect(payload.sub).toBe(user.userId);
  });
});
