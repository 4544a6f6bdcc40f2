import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openControlDb } from '../../src/platform/storage/control.js';
import { dataDirLayout } from '../../src/platform/storage/data-dir.js';
import { runNodectl } from '../helpers/cli.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { PROJECT_ROOT } from '../helpers/paths.js';
import { seedConnector, seedDataDir } from '../helpers/seed.js';
import { CookieJar } from './cookie-jar.js';

/**
 * The accounts surface against the real `nodectl serve`, as a browser would use it: undici's fetch
 * with a cookie jar, the verification token read out of the .eml the daemon wrote, codes from an
 * authenticator (otpauth), and the access token checked by a JWKS client that is not the code's
 * own (jose's remote key set over the served /.well-known/jwks.json).
 */
let daemon: TestDaemon;
beforeAll(async () => {
  // trace: every log line the daemon can write, so the secret grep below sees all of them.
  daemon = await startTestDaemon({ env: { NODECTL_LOG_LEVEL: 'trace' } });
}, 60_000);
afterAll(async () => {
  await daemon?.stop();
});

const PASSWORD = 'a long e2e password, never logged';

function totp(secret: string, ms: number): string {
  return new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) }).generate({
    timestamp: ms,
  });
}

/** JSON POST (or GET) through the jar; answers status, parsed body and headers. */
async function call(jar: CookieJar, method: 'GET' | 'POST', path: string, body?: unknown, accessToken?: string) {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (accessToken) headers.authorization = `Bearer ${accessToken}`;
  const res = await jar.fetch(`${daemon.url}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as any) : undefined, headers: res.headers };
}

/** The token of the newest .eml to `email` with `subject`, as a user without a mail client would read it. */
function tokenFromMail(email: string, subject: string): string {
  const dir = join(daemon.dataDir, 'mail');
  const mails = readdirSync(dir)
    .filter((f) => f.endsWith('.eml'))
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .filter((m) => m.includes(`To: ${email}\r\n`) && m.includes(`Subject: ${subject}\r\n`));
  expect(mails).toHaveLength(1);
  const token = /Your token: ([A-Za-z0-9_-]{43})/.exec(mails[0]!.replace(/=\r?\n/g, ''))?.[1];
  if (!token) throw new Error(`no token in:\n${mails[0]}`);
  return token;
}

describe('accounts end to end (spawned daemon, cookie jar)', () => {
  it('register -> verify (.eml) -> login -> 2FA setup/activate -> mfa_required then code -> refresh rotation -> reuse detection -> logout-all; no secret reaches the log', async () => {
    const secrets: string[] = [PASSWORD];
    const browser = new CookieJar();
    const email = 'ada@example.com';

    const registered = await call(browser, 'POST', '/v1/auth/register', {
      email,
      password: PASSWORD,
      orgName: 'Analytical Engines',
    });
    expect(registered.status).toBe(201);
    expect(registered.json.data).toEqual({ userId: expect.stringMatching(/^usr_/), emailVerificationSent: true });
    // The accounts.mail job sends it, after the answer.
    await daemon.untilOutput(/"mail":"email_verification"[^\n]*"msg":"mail sent"/);

    const verificationToken = tokenFromMail(email, 'Confirm your email address');
    secrets.push(verificationToken);
    expect((await call(browser, 'POST', '/v1/auth/verify-email', { token: verificationToken })).status).toBe(200);

    const login = await call(browser, 'POST', '/v1/auth/login', { email, password: PASSWORD });
    expect(login.status).toBe(200);
    const userId: string = login.json.data.user.id;
    const cookie = browser.get('svc_refresh')!;
    // Plain http on loopback: not Secure, so the jar (like a browser) keeps and sends it over http.
    expect(cookie).toMatchObject({
      value: login.json.data.refreshToken,
      path: '/v1/auth',
      httpOnly: true,
      secure: false,
      sameSite: 'Strict',
    });
    expect(cookie.expiresAt! - Date.now()).toBeGreaterThan(29 * 24 * 3600_000);
    expect(browser.headerFor(`${daemon.url}/v1/websites/x/publish`)).toBeUndefined();
    let accessToken: string = login.json.data.accessToken;
    secrets.push(accessToken, login.json.data.refreshToken);

    // An independent check of the access token: jose's remote JWKS client over the served key set.
    const { payload, protectedHeader } = await jwtVerify(
      accessToken,
      createRemoteJWKSet(new URL(`${daemon.url}/.well-known/jwks.json`)),
      { issuer: daemon.url, audience: 'nodectl', algorithms: ['EdDSA'], typ: 'at+jwt' },
    );
    expect(payload).toMatchObject({ sub: userId, sid: expect.stringMatching(/^ses_/), tv: 1, jti: expect.any(String) });
    expect(payload.exp! - payload.iat!).toBe(900);
    expect(protectedHeader.kid).toBe(decodeProtectedHeader(accessToken).kid);

    expect((await call(browser, 'GET', '/v1/auth/me', undefined, accessToken)).json.data.user).toMatchObject({
      id: userId,
      emailVerified: true,
      mfaEnabled: false,
    });

    // 2FA: setup, then activate with the authenticator's current code.
    const setup = await call(browser, 'POST', '/v1/auth/2fa/setup', undefined, accessToken);
    const secret: string = setup.json.data.secret;
    secrets.push(secret);
    const activatedAt = Date.now();
    const activated = await call(
      browser,
      'POST',
      '/v1/auth/2fa/activate',
      { code: totp(secret, activatedAt) },
      accessToken,
    );
    expect(activated.status).toBe(200);
    const recoveryCodes: string[] = activated.json.data.recoveryCodes;
    secrets.push(...recoveryCodes);

    const required = await call(browser, 'POST', '/v1/auth/login', { email, password: PASSWORD });
    expect(required.status).toBe(401);
    expect(required.json.error).toMatchObject({ code: 'auth.mfa_required', details: { mfa: 'totp' } });
    // The activation code is spent; the next step's code is within the one-step window.
    const withCode = await call(browser, 'POST', '/v1/auth/login', {
      email,
      password: PASSWORD,
      totp: totp(secret, activatedAt + 30_000),
    });
    expect(withCode.status).toBe(200);
    expect(withCode.json.data.user.mfaEnabled).toBe(true);
    const firstRefresh: string = withCode.json.data.refreshToken;
    accessToken = withCode.json.data.accessToken;
    secrets.push(accessToken, firstRefresh);
    expect(browser.get('svc_refresh')!.value).toBe(firstRefresh);

    // Refresh with the cookie alone: rotated, and the jar holds the new token.
    const refreshed = await call(browser, 'POST', '/v1/auth/refresh');
    expect(refreshed.status).toBe(200);
    const secondRefresh: string = refreshed.json.data.refreshToken;
    secrets.push(refreshed.json.data.accessToken, secondRefresh);
    expect(secondRefresh).not.toBe(firstRefresh);
    expect(browser.get('svc_refresh')!.value).toBe(secondRefresh);
    expect((await call(browser, 'GET', '/v1/auth/me', undefined, refreshed.json.data.accessToken)).status).toBe(200);

    // Someone replays the first (rotated) token: reuse ends the whole session, for the browser too.
    const thief = new CookieJar();
    const reused = await call(thief, 'POST', '/v1/auth/refresh', { refreshToken: firstRefresh });
    expect(reused.status).toBe(401);
    expect(reused.json.error.code).toBe('auth.refresh_reused');
    const browserAfter = await call(browser, 'POST', '/v1/auth/refresh');
    expect(browserAfter.json.error.code).toBe('auth.unauthenticated');
    expect(browser.get('svc_refresh')).toBeUndefined();
    expect((await call(browser, 'GET', '/v1/auth/me', undefined, refreshed.json.data.accessToken)).status).toBe(401);

    // Two new sessions (recovery codes as the second factor), then logout-all from one ends both.
    const laptop = await call(new CookieJar(), 'POST', '/v1/auth/login', {
      email,
      password: PASSWORD,
      recoveryCode: recoveryCodes[0],
    });
    const phone = await call(browser, 'POST', '/v1/auth/login', {
      email,
      password: PASSWORD,
      recoveryCode: recoveryCodes[1],
    });
    expect([laptop.status, phone.status]).toEqual([200, 200]);
    secrets.push(
      laptop.json.data.accessToken,
      laptop.json.data.refreshToken,
      phone.json.data.accessToken,
      phone.json.data.refreshToken,
    );
    const all = await call(browser, 'POST', '/v1/auth/logout-all', undefined, phone.json.data.accessToken);
    expect(all.status).toBe(204);
    expect(browser.get('svc_refresh')).toBeUndefined();
    for (const token of [laptop.json.data.accessToken, phone.json.data.accessToken])
      expect((await call(new CookieJar(), 'GET', '/v1/auth/me', undefined, token)).status).toBe(401);
    for (const token of [laptop.json.data.refreshToken, phone.json.data.refreshToken])
      expect((await call(new CookieJar(), 'POST', '/v1/auth/refresh', { refreshToken: token })).status).toBe(401);

    // Nothing secret in what the daemon logged at trace level.
    const output = daemon.output();
    expect(output.length).toBeGreaterThan(0);
    for (const value of secrets)
      expect(output.includes(value), `the daemon log holds a secret (${value.slice(0, 6)}...)`).toBe(false);
  }, 60_000);

  it('a user who is editor of an organization publishes its website, and is refused on another organization (403 auth.tenant_mismatch)', async () => {
    const jar = new CookieJar();
    // The operator's part, written beside the daemon from this process; the user's part goes through the CLI and HTTP.
    const siteA = await seedDataDir(daemon.dataDir, { domain: 'blog.fieldnotes.example' });
    const siteB = await seedDataDir(daemon.dataDir, { domain: 'b.example' });
    const connector = await seedConnector(daemon.dataDir, siteA.websiteId, {
      type: 'files',
      sourceTypes: ['page', 'post', 'profile', 'collection'],
    });
    const push = await runNodectl(
      [
        'push',
        join(PROJECT_ROOT, 'fixtures/blog/items.jsonl'),
        '--url',
        daemon.url,
        '--website',
        siteA.websiteId,
        '--domain',
        'blog.fieldnotes.example',
      ],
      { env: { NODECTL_CONNECTOR_TOKEN: connector.token } },
    );
    expect(push.exitCode, push.stderr).toBe(0);
    const wait = await runNodectl(['jobs', 'wait', '--kind', 'content.ingest'], { dataDir: daemon.dataDir });
    expect(wait.exitCode, wait.stderr).toBe(0);

    const email = 'editor@example.com';
    expect(
      (await call(jar, 'POST', '/v1/auth/register', { email, password: PASSWORD, orgName: 'Editor Org' })).status,
    ).toBe(201);
    const db = openControlDb(dataDirLayout(daemon.dataDir));
    try {
      const userId = (db.prepare('SELECT id FROM users WHERE email = ?').get(email) as { id: string }).id;
      // The daemon hashes at the product's scrypt cost (the tests in process use a cheaper one).
      expect(db.prepare('SELECT password_hash FROM users WHERE id = ?').pluck().get(userId)).toMatch(
        /^scrypt\$32768\$8\$1\$/,
      );
      db.prepare("INSERT INTO members (organization_id, user_id, role, created_at) VALUES (?, ?, 'editor', ?)").run(
        siteA.orgId,
        userId,
        new Date().toISOString(),
      );
    } finally {
      db.close();
    }
    const accessToken: string = (await call(jar, 'POST', '/v1/auth/login', { email, password: PASSWORD })).json.data
      .accessToken;

    const published = await call(jar, 'POST', `/v1/websites/${siteA.websiteId}/publish`, {}, accessToken);
    expect(published.status, JSON.stringify(published.json)).toBe(200);
    expect(published.json.data.versionUlid).toMatch(/^[0-9A-Z]{26}$/);
    const refused = await call(jar, 'POST', `/v1/websites/${siteB.websiteId}/publish`, {}, accessToken);
    expect(refused.status).toBe(403);
    expect(refused.json.error.code).toBe('auth.tenant_mismatch');
  }, 120_000);
});
