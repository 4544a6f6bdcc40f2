import crypto, { generateKeyPairSync } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { exportJWK, SignJWT } from 'jose';
import { verifyAccessToken } from '../../../src/control/accounts/access-tokens.js';
import { googleSignIn } from '../../../src/control/accounts/google-sign-in.js';
import { login } from '../../../src/control/accounts/login.js';
import { changePassword, forgotPassword, resetPassword } from '../../../src/control/accounts/passwords.js';
import { readAccountProfile } from '../../../src/control/accounts/profile.js';
import { register } from '../../../src/control/accounts/register.js';
import { verifyEmail } from '../../../src/control/accounts/email-verification.js';
import { refreshSession } from '../../../src/control/accounts/sessions.js';
import type { MailTransport } from '../../../src/control/mail/mail-transport.js';
import { listOrganizations } from '../../../src/control/records/organizations.js';
import { MINUTE, openAccountsFixture, serveJson, tokenInMail, type AccountsFixture } from './support.js';

const fixtures: AccountsFixture[] = [];
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
  fixtures.splice(0).forEach((f) => f.close());
});

async function open(
  overrides: Parameters<typeof openAccountsFixture>[0] = {},
  options: Parameters<typeof openAccountsFixture>[1] = {},
) {
  const f = await openAccountsFixture(overrides, options);
  fixtures.push(f);
  return f;
}

async function failure(
  promise: Promise<unknown> | (() => unknown),
): Promise<{ code?: string; status?: number; message: string; details?: unknown }> {
  try {
    await (typeof promise === 'function' ? promise() : promise);
  } catch (error) {
    return error as { code?: string; status?: number; message: string };
  }
  throw new Error('expected a failure');
}

const PASSWORD = 'correct-horse-battery';

describe('register and email verification', () => {
  it('register creates the user and an organization it owns, and mails a verification token (after it resolves) that verifies the address once', async () => {
    const f = await open();
    const result = await register(f.ctx, {
      email: 'Ada@Example.com',
      password: PASSWORD,
      orgName: 'Analytical Engines',
    });
    expect(result).toEqual({
      userId: expect.stringMatching(/^usr_/),
      created: true,
      answer: { userId: result.userId, emailVerificationSent: true },
    });
    await f.ctx.mail.idle();
    expect(listOrganizations(f.db)).toMatchObject([{ name: 'Analytical Engines', slug: 'analytical-engines' }]);
    expect(readAccountProfile(f.ctx, { userId: result.userId })).toMatchObject({
      user: { email: 'ada@example.com', emailVerified: false },
      organizations: [{ name: 'Analytical Engines', role: 'organization_owner' }],
    });
    const mails = f.mails();
    expect(mails).toHaveLength(1);
    expect(mails[0]).toContain('To: ada@example.com');
    const token = tokenInMail(mails[0]!);
    expect(verifyEmail(f.ctx, { token })).toEqual({
      userId: result.userId,
      email: 'ada@example.com',
      emailVerified: true,
    });
    expect(readAccountProfile(f.ctx, { userId: result.userId }).user.emailVerified).toBe(true);
    expect((await failure(() => verifyEmail(f.ctx, { token }))).code).toBe('auth.mail_token_used');
  });

  it('register validates with its schema: short password, bad email, empty orgName, unknown field (422 validation.failed naming the field); a taken email makes no account and mails its owner', async () => {
    const f = await open();
    const fieldsOf = async (input: unknown) =>
      ((await failure(register(f.ctx, input))).details as { fields: Array<{ path: string }> }).fields.map(
        (p) => p.path,
      );
    expect(await fieldsOf({ email: 'ada@example.com', password: 'short', orgName: 'X' })).toEqual(['password']);
    expect(await fieldsOf({ email: 'nope', password: PASSWORD, orgName: 'X' })).toEqual(['email']);
    expect(await fieldsOf({ email: 'ada@example.com', password: PASSWORD, orgName: '  ' })).toEqual(['orgName']);
    expect(await fieldsOf({ email: 'ada@example.com', password: PASSWORD, orgName: 'X', role: 'admin' })).toEqual([
      '(root)',
    ]);
    const first = await register(f.ctx, { email: 'ada@example.com', password: PASSWORD, orgName: 'X' });
    const second = await register(f.ctx, { email: 'ADA@example.com', password: PASSWORD, orgName: 'Y' });
    expect(second).toEqual({
      userId: first.userId,
      created: false,
      answer: { userId: expect.stringMatching(/^usr_/), emailVerificationSent: true },
    });
    expect(second.answer.userId).not.toBe(first.userId);
    expect(listOrganizations(f.db)).toHaveLength(1);
    await f.ctx.mail.idle();
    expect(f.mails().filter((m) => m.includes('Subject: Someone tried to register with your address'))).toHaveLength(1);
  });

  it('a mail transport that fails does not fail register: the mail goes out after it, and a failure is only logged', async () => {
    const broken: MailTransport = {
      kind: 'smtp',
      send: () => Promise.reject(new Error('connect ECONNREFUSED')),
      close() {},
    };
    const f = await open({}, { mailTransport: broken });
    await expect(
      register(f.ctx, { email: 'ada@example.com', password: PASSWORD, orgName: 'X' }),
    ).resolves.toMatchObject({ created: true });
    await f.ctx.mail.idle();
  });
});

describe('login', () => {
  it('answers a session for the right password; an unknown email and a wrong password are the same auth.invalid_credentials', async () => {
    const f = await open();
    const { userId } = await register(f.ctx, { email: 'ada@example.com', password: PASSWORD, orgName: 'X' });
    const ok = await login(f.ctx, { email: 'ADA@example.com', password: PASSWORD });
    expect(ok.grant.user).toMatchObject({ id: userId, email: 'ada@example.com' });
    await expect(verifyAccessToken(f.ctx, ok.grant.accessToken)).resolves.toMatchObject({ userId });
    const unknown = await failure(login(f.ctx, { email: 'nobody@example.com', password: PASSWORD }));
    const wrong = await failure(login(f.ctx, { email: 'ada@example.com', password: 'wrong-password-1' }));
    expect([unknown.code, unknown.status, unknown.message]).toEqual([wrong.code, wrong.status, wrong.message]);
    expect(wrong.code).toBe('auth.invalid_credentials');
  });

  it('an unknown email takes as long as a wrong password: a dummy scrypt runs, with the same cost parameters', async () => {
    const f = await open();
    await register(f.ctx, { email: 'ada@example.com', password: PASSWORD, orgName: 'X' });
    // scrypt as it is, watched: a login's cost is the scrypt runs it makes (password-hash.ts).
    const scrypt = vi.spyOn(crypto, 'scrypt');
    cleanups.push(() => scrypt.mockRestore());
    /** The scrypt runs one failed login makes: key length and cost parameters (N, r, p) of each. */
    const scryptsOf = async (email: string) => {
      scrypt.mockClear();
      await login(f.ctx, { email, password: 'wrong-password-1' }).catch(() => undefined);
      return scrypt.mock.calls.map(([, , keylen, options]) => ({ keylen, options }));
    };
    await scryptsOf('warm@example.com'); // the dummy hash is made once, at the first unknown email
    const unknown = await scryptsOf('nobody@example.com');
    const wrong = await scryptsOf('ada@example.com');
    expect(wrong).toHaveLength(1);
    expect(unknown).toEqual(wrong);
  });
});

describe('passwords', () => {
  it('change needs the current password, then every earlier access token and session is refused and the new password signs in', async () => {
    const f = await open();
    const { userId } = await register(f.ctx, { email: 'ada@example.com', password: PASSWORD, orgName: 'X' });
    const session = await login(f.ctx, { email: 'ada@example.com', password: PASSWORD });
    expect(
      (
        await failure(
          changePassword(f.ctx, { userId }, { currentPassword: 'wrong-password-1', newPassword: 'new-horse-battery' }),
        )
      ).code,
    ).toBe('auth.invalid_credentials');
    expect(
      (await failure(changePassword(f.ctx, { userId }, { currentPassword: PASSWORD, newPassword: PASSWORD }))).code,
    ).toBe('validation.failed');
    await changePassword(f.ctx, { userId }, { currentPassword: PASSWORD, newPassword: 'new-horse-battery' });
    expect((await failure(verifyAccessToken(f.ctx, session.grant.accessToken))).code).toBe('auth.unauthenticated');
    expect((await failure(refreshSession(f.ctx, session.grant.refreshToken))).code).toBe('auth.unauthenticated');
    expect((await failure(login(f.ctx, { email: 'ada@example.com', password: PASSWORD }))).code).toBe(
      'auth.invalid_credentials',
    );
    await expect(login(f.ctx, { email: 'ada@example.com', password: 'new-horse-battery' })).resolves.toBeDefined();
  });

  it('forgot answers the same for unknown and known addresses, mails only the known one, and the 1 h token resets the password once and ends every session', async () => {
    const f = await open();
    await register(f.ctx, { email: 'ada@example.com', password: PASSWORD, orgName: 'X' });
    const session = await login(f.ctx, { email: 'ada@example.com', password: PASSWORD });
    await f.ctx.mail.idle();
    const before = f.mails().length;
    expect(forgotPassword(f.ctx, { email: 'nobody@example.com' })).toBeUndefined();
    await f.ctx.mail.idle();
    expect(f.mails()).toHaveLength(before);
    expect(forgotPassword(f.ctx, { email: 'ada@example.com' })).toBeUndefined();
    await f.ctx.mail.idle();
    const mails = f.mails();
    expect(mails).toHaveLength(before + 1);
    const resets = mails.filter((m) => m.includes('Subject: Reset your password'));
    expect(resets).toHaveLength(1);
    const token = tokenInMail(resets[0]!);

    f.advance(59 * MINUTE);
    await resetPassword(f.ctx, { token, password: 'brand-new-password' });
    expect((await failure(resetPassword(f.ctx, { token, password: 'another-new-password' }))).code).toBe(
      'auth.mail_token_used',
    );
    expect((await failure(verifyAccessToken(f.ctx, session.grant.accessToken))).code).toBe('auth.unauthenticated');
    await expect(login(f.ctx, { email: 'ada@example.com', password: 'brand-new-password' })).resolves.toMatchObject({
      grant: { user: { emailVerified: true } },
    });
  });

  it('a reset token older than 1 hour is auth.mail_token_expired', async () => {
    const f = await open();
    await register(f.ctx, { email: 'ada@example.com', password: PASSWORD, orgName: 'X' });
    forgotPassword(f.ctx, { email: 'ada@example.com' });
    await f.ctx.mail.idle();
    const token = tokenInMail(f.mails().find((m) => m.includes('Subject: Reset your password'))!);
    f.advance(60 * MINUTE);
    expect((await failure(resetPassword(f.ctx, { token, password: 'brand-new-password' }))).code).toBe(
      'auth.mail_token_expired',
    );
  });
});

describe('Google sign-in', () => {
  const CLIENT_ID = 'client-123.apps.googleusercontent.com';

  /** A stand-in for Google: its own RSA key, served as a JWKS over loopback, and an ID token minter. */
  async function fakeGoogle() {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const jwk = { ...(await exportJWK(publicKey)), kid: 'google-test-1', alg: 'RS256', use: 'sig' };
    const server = await serveJson(() => ({ keys: [jwk] }));
    cleanups.push(() => server.close());
    const idToken = (
      claims: Record<string, unknown>,
      options: { audience?: string; issuer?: string; key?: typeof privateKey } = {},
    ) =>
      new SignJWT({ email: 'ada@example.com', email_verified: true, ...claims })
        .setProtectedHeader({ alg: 'RS256', kid: 'google-test-1' })
        .setIssuer(options.issuer ?? 'https://accounts.google.com')
        .setAudience(options.audience ?? CLIENT_ID)
        .setSubject(String(claims.sub ?? '1098765'))
        .setIssuedAt(Math.floor(fixtureNow() / 1000))
        .setExpirationTime(Math.floor(fixtureNow() / 1000) + 3600)
        .sign(options.key ?? privateKey);
    let fixtureNow = () => Date.now();
    const f = await open({ googleClientId: CLIENT_ID, googleJwksUrl: server.url });
    fixtureNow = () => f.clock.now;
    return { f, idToken, server };
  }

  it('verifies the ID token against the JWKS URL, creates an account for a new verified email (no password) and answers a session', async () => {
    const { f, idToken } = await fakeGoogle();
    const result = await googleSignIn(f.ctx, { idToken: await idToken({ email: 'new@example.com' }) });
    expect(result.grant.user).toMatchObject({ email: 'new@example.com', emailVerified: true });
    await expect(verifyAccessToken(f.ctx, result.grant.accessToken)).resolves.toMatchObject({
      userId: result.grant.user.id,
    });
    expect(f.db.prepare('SELECT password_hash FROM users WHERE id = ?').pluck().get(result.grant.user.id)).toBeNull();
    // Signing in again finds the same account through the linked subject.
    const again = await googleSignIn(f.ctx, { idToken: await idToken({ email: 'new@example.com' }) });
    expect(again.grant.user.id).toBe(result.grant.user.id);
    // The account has no password, so password login fails the usual way.
    expect((await failure(login(f.ctx, { email: 'new@example.com', password: PASSWORD }))).code).toBe(
      'auth.invalid_credentials',
    );
  });

  it('links an existing account by verified email; an account whose email was never verified loses its password and sessions (pre-hijacking)', async () => {
    const { f, idToken } = await fakeGoogle();
    const { userId } = await register(f.ctx, { email: 'ada@example.com', password: PASSWORD, orgName: 'X' });
    const squatter = await login(f.ctx, { email: 'ada@example.com', password: PASSWORD });
    const result = await googleSignIn(f.ctx, { idToken: await idToken({ sub: 'google-ada' }) });
    expect(result.grant.user).toMatchObject({ id: userId, emailVerified: true });
    expect((await failure(verifyAccessToken(f.ctx, squatter.grant.accessToken))).code).toBe('auth.unauthenticated');
    expect((await failure(login(f.ctx, { email: 'ada@example.com', password: PASSWORD }))).code).toBe(
      'auth.invalid_credentials',
    );

    // A verified account keeps its password when linked.
    const other = await register(f.ctx, { email: 'bob@example.com', password: PASSWORD, orgName: 'Y' });
    await f.ctx.mail.idle();
    verifyEmail(f.ctx, { token: tokenInMail(f.mails().find((m) => m.includes('To: bob@example.com'))!) });
    await expect(
      googleSignIn(f.ctx, { idToken: await idToken({ sub: 'google-bob', email: 'bob@example.com' }) }),
    ).resolves.toMatchObject({ grant: { user: { id: other.userId } } });
    await expect(login(f.ctx, { email: 'bob@example.com', password: PASSWORD })).resolves.toBeDefined();
  });

  it('refuses an unverified email (auth.idp_email_unverified), another audience, another issuer, an expired token and a foreign signature (auth.idp_token_invalid)', async () => {
    const { f, idToken } = await fakeGoogle();
    expect((await failure(googleSignIn(f.ctx, { idToken: await idToken({ email_verified: false }) }))).code).toBe(
      'auth.idp_email_unverified',
    );
    expect(
      (await failure(googleSignIn(f.ctx, { idToken: await idToken({}, { audience: 'someone-else' }) }))).code,
    ).toBe('auth.idp_token_invalid');
    expect(
      (await failure(googleSignIn(f.ctx, { idToken: await idToken({}, { issuer: 'https://evil.example' }) }))).code,
    ).toBe('auth.idp_token_invalid');
    const foreign = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    expect((await failure(googleSignIn(f.ctx, { idToken: await idToken({}, { key: foreign }) }))).code).toBe(
      'auth.idp_token_invalid',
    );
    const token = await idToken({});
    f.advance(61 * MINUTE);
    expect((await failure(googleSignIn(f.ctx, { idToken: token }))).code).toBe('auth.idp_token_invalid');
    expect(f.db.prepare('SELECT COUNT(*) FROM users').pluck().get()).toBe(0);
  });

  it('with 2FA on, Google sign-in also needs the second factor (auth.mfa_required)', async () => {
    const { f, idToken } = await fakeGoogle();
    const first = await googleSignIn(f.ctx, { idToken: await idToken({}) });
    f.db
      .prepare('INSERT INTO user_totp (user_id, secret_ciphertext, created_at, enabled_at) VALUES (?, ?, ?, ?)')
      .run(first.grant.user.id, 'v1.x.y.z', f.clock.now, f.clock.now);
    expect(await failure(googleSignIn(f.ctx, { idToken: await idToken({}) }))).toMatchObject({
      code: 'auth.mfa_required',
      details: { mfa: 'totp' },
    });
  });

  it('is auth.idp_unconfigured without googleClientId, and service.unavailable when the JWKS cannot be fetched', async () => {
    const off = await open();
    expect((await failure(googleSignIn(off.ctx, { idToken: 'a.b.c' }))).code).toBe('auth.idp_unconfigured');
    const { idToken } = await fakeGoogle();
    const token = await idToken({});
    const down = await open({ googleClientId: CLIENT_ID, googleJwksUrl: 'http://127.0.0.1:1/jwks.json' });
    expect(await failure(googleSignIn(down.ctx, { idToken: token }))).toMatchObject({
      code: 'service.unavailable',
      status: 503,
    });
  });
});
