import { afterEach, describe, expect, it } from 'vitest';
import { verifyAccessToken } from '../../../src/control/accounts/access-tokens.js';
import { readAuthUser } from '../../../src/control/accounts/account-users.js';
import { issueMailToken } from '../../../src/control/accounts/mail-tokens.js';
import { pruneAccountRecords } from '../../../src/control/accounts/prune.js';
import { logout, logoutAll, refreshSession, startSession } from '../../../src/control/accounts/sessions.js';
import { createUser } from '../../../src/control/records/users.js';
import { MINUTE, openAccountsFixture, type AccountsFixture } from './support.js';

const DAY = 24 * 60 * MINUTE;
const fixtures: AccountsFixture[] = [];
afterEach(() => fixtures.splice(0).forEach((f) => f.close()));

async function withUser(overrides: Parameters<typeof openAccountsFixture>[0] = {}) {
  const f = await openAccountsFixture(overrides);
  fixtures.push(f);
  const record = await createUser(f.db, { email: 'ada@example.com', password: 'correct-horse-battery' }, f.clock.now);
  return { f, user: readAuthUser(f.db, record.id)! };
}

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  return promise.then(
    () => undefined,
    (e: { code?: string }) => e.code ?? String(e),
  );
}

describe('sessions and refresh tokens', () => {
  it('a sign-in answers {accessToken, tokenType, expiresIn, refreshToken, user}; the refresh token is opaque and only its hash is stored', async () => {
    const { f, user } = await withUser();
    const { grant, sessionId, sessionExpiresAt } = await startSession(f.ctx, user);
    expect(Object.keys(grant).sort()).toEqual(['accessToken', 'expiresIn', 'refreshToken', 'tokenType', 'user']);
    expect(grant).toMatchObject({
      tokenType: 'Bearer',
      expiresIn: 900,
      user: { id: user.id, email: 'ada@example.com', emailVerified: false, mfaEnabled: false },
    });
    expect(grant.refreshToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(sessionExpiresAt).toBe(f.clock.now + 30 * DAY);
    const stored = f.db
      .prepare('SELECT token_hash FROM refresh_tokens WHERE session_id = ?')
      .pluck()
      .all(sessionId) as string[];
    expect(stored).toHaveLength(1);
    expect(stored[0]).not.toContain(grant.refreshToken);
    expect(JSON.stringify(f.db.prepare('SELECT * FROM refresh_tokens').all())).not.toContain(grant.refreshToken);
  });

  it('every refresh rotates: a new pair in the same session, and the old refresh token is spent', async () => {
    const { f, user } = await withUser();
    const first = await startSession(f.ctx, user);
    f.advance(MINUTE);
    const second = await refreshSession(f.ctx, first.grant.refreshToken);
    expect(second.sessionId).toBe(first.sessionId);
    expect(second.grant.refreshToken).not.toBe(first.grant.refreshToken);
    expect(second.grant.accessToken).not.toBe(first.grant.accessToken);
    await expect(verifyAccessToken(f.ctx, second.grant.accessToken)).resolves.toMatchObject({
      userId: user.id,
      sessionId: first.sessionId,
    });
    const third = await refreshSession(f.ctx, second.grant.refreshToken);
    expect(third.sessionId).toBe(first.sessionId);
  });

  it('presenting an already-rotated refresh token fails with auth.refresh_reused and revokes the whole session family (the newest refresh token and access tokens too)', async () => {
    const { f, user } = await withUser();
    const first = await startSession(f.ctx, user);
    const second = await refreshSession(f.ctx, first.grant.refreshToken);
    const error = await refreshSession(f.ctx, first.grant.refreshToken).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'auth.refresh_reused', status: 401 });
    // The thief's copy and the owner's copy are both dead now.
    expect(await codeOf(refreshSession(f.ctx, second.grant.refreshToken))).toBe('auth.unauthenticated');
    expect(await codeOf(verifyAccessToken(f.ctx, second.grant.accessToken))).toBe('auth.unauthenticated');
    expect(f.db.prepare('SELECT revoked_reason FROM sessions WHERE id = ?').pluck().get(first.sessionId)).toBe(
      'refresh_reused',
    );
    // Another session of the same user is untouched.
    const other = await startSession(f.ctx, user);
    await expect(refreshSession(f.ctx, other.grant.refreshToken)).resolves.toBeDefined();
  });

  it('two concurrent refreshes with one token: exactly one succeeds', async () => {
    const { f, user } = await withUser();
    const first = await startSession(f.ctx, user);
    const results = await Promise.allSettled([
      refreshSession(f.ctx, first.grant.refreshToken),
      refreshSession(f.ctx, first.grant.refreshToken),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
  });

  it("logout ends one session at once (its access and refresh tokens); the user's other sessions live on", async () => {
    const { f, user } = await withUser();
    const a = await startSession(f.ctx, user);
    const b = await startSession(f.ctx, user);
    logout(f.ctx, { sessionId: a.sessionId });
    expect(await codeOf(verifyAccessToken(f.ctx, a.grant.accessToken))).toBe('auth.unauthenticated');
    expect(await codeOf(refreshSession(f.ctx, a.grant.refreshToken))).toBe('auth.unauthenticated');
    await expect(verifyAccessToken(f.ctx, b.grant.accessToken)).resolves.toBeDefined();
  });

  it('logout-all bumps the token version: every earlier access token of every session is refused, and no session refreshes', async () => {
    const { f, user } = await withUser();
    const a = await startSession(f.ctx, user);
    const b = await startSession(f.ctx, user);
    logoutAll(f.ctx, { userId: user.id });
    expect(f.db.prepare('SELECT token_version FROM users WHERE id = ?').pluck().get(user.id)).toBe(2);
    for (const s of [a, b]) {
      expect(await codeOf(verifyAccessToken(f.ctx, s.grant.accessToken))).toBe('auth.unauthenticated');
      expect(await codeOf(refreshSession(f.ctx, s.grant.refreshToken))).toBe('auth.unauthenticated');
    }
    // A new sign-in carries the new version and works.
    const fresh = await startSession(f.ctx, readAuthUser(f.db, user.id)!);
    await expect(verifyAccessToken(f.ctx, fresh.grant.accessToken)).resolves.toMatchObject({ tokenVersion: 2 });
  });

  it('a session lasts sessionLifetimeDays from sign-in however often it refreshes (setting, default 30)', async () => {
    const { f, user } = await withUser({ sessionLifetimeDays: 2 });
    let current = await startSession(f.ctx, user);
    f.advance(DAY);
    current = await refreshSession(f.ctx, current.grant.refreshToken);
    f.advance(DAY - 1);
    current = await refreshSession(f.ctx, current.grant.refreshToken);
    f.advance(1);
    expect(await codeOf(refreshSession(f.ctx, current.grant.refreshToken))).toBe('auth.unauthenticated');
  });

  it('an unknown or malformed refresh token is auth.unauthenticated', async () => {
    const { f } = await withUser();
    expect(await codeOf(refreshSession(f.ctx, 'x'.repeat(43)))).toBe('auth.unauthenticated');
    expect(await codeOf(refreshSession(f.ctx, 'not a token'))).toBe('auth.unauthenticated');
  });
});

describe('pruning', () => {
  const fixtures: AccountsFixture[] = [];
  afterEach(() => fixtures.splice(0).forEach((f) => f.close()));

  it('pruneAccountRecords deletes sessions (with their refresh tokens) and mailed tokens past their expiry, and nothing live', async () => {
    const f = await openAccountsFixture({ sessionLifetimeDays: 1 });
    fixtures.push(f);
    const record = await createUser(f.db, { email: 'ada@example.com', password: 'correct-horse-battery' }, f.clock.now);
    const old = await startSession(f.ctx, readAuthUser(f.db, record.id)!);
    await refreshSession(f.ctx, old.grant.refreshToken);
    issueMailToken(f.db, 'password_reset', { userId: record.id, email: 'ada@example.com' }, f.clock.now);
    f.advance(DAY);
    const live = await startSession(f.ctx, readAuthUser(f.db, record.id)!);
    issueMailToken(f.db, 'email_verification', { userId: record.id, email: 'ada@example.com' }, f.clock.now);
    expect(pruneAccountRecords(f.db, f.clock.now + 1)).toEqual({ sessions: 1, mailTokens: 1 });
    expect(f.db.prepare('SELECT id FROM sessions').pluck().all()).toEqual([live.sessionId]);
    expect(f.db.prepare('SELECT COUNT(*) FROM refresh_tokens').pluck().get()).toBe(1);
    expect(f.db.prepare('SELECT kind FROM mail_tokens').pluck().all()).toEqual(['email_verification']);
  });
});
