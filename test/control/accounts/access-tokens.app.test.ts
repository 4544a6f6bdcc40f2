import { createHmac, createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify, SignJWT, UnsecuredJWT } from 'jose';
import {
  ACCESS_TOKEN_LIFETIME_SECONDS,
  readJwks,
  verifyAccessToken,
} from '../../../src/control/accounts/access-tokens.js';
import { rotateSigningKey } from '../../../src/control/accounts/signing-keys.js';
import { startSession } from '../../../src/control/accounts/sessions.js';
import { readAuthUser } from '../../../src/control/accounts/account-users.js';
import { createUser } from '../../../src/control/records/users.js';
import { MINUTE, openAccountsFixture, serveJson, T0, type AccountsFixture } from './support.js';

const fixtures: AccountsFixture[] = [];
const servers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  fixtures.splice(0).forEach((f) => f.close());
});

async function open(overrides: Parameters<typeof openAccountsFixture>[0] = {}) {
  const f = await openAccountsFixture(overrides);
  fixtures.push(f);
  return f;
}

/** A user with a live session, and an access token of it. */
async function signedIn(f: AccountsFixture) {
  const user = await createUser(
    f.db,
    {
      email: `u${fixtures.length}-${Math.random().toString(36).slice(2, 7)}@example.com`,
      password: 'correct-horse-battery',
    },
    f.clock.now,
  );
  const { grant, sessionId } = await startSession(f.ctx, readAuthUser(f.db, user.id)!);
  return { userId: user.id, sessionId, token: grant.accessToken };
}

async function expectUnauthenticated(promise: Promise<unknown>, message?: RegExp) {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toMatchObject({ code: 'auth.unauthenticated', status: 401 });
  if (message) expect((error as Error).message).toMatch(message);
}

describe('access tokens', () => {
  it('are EdDSA JWTs with a kid header and the claims iss, aud, sub, sid, tv, iat, exp (15 min), jti, and verify', async () => {
    const f = await open();
    const { userId, sessionId, token } = await signedIn(f);
    const header = decodeProtectedHeader(token);
    expect(header).toMatchObject({ alg: 'EdDSA', typ: 'at+jwt' });
    expect(header.kid).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const verified = await verifyAccessToken(f.ctx, token);
    expect(verified).toMatchObject({
      userId,
      sessionId,
      tokenVersion: 1,
      issuedAt: T0 / 1000,
      expiresAt: T0 / 1000 + 900,
    });
    const payload = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));
    expect(Object.keys(payload).sort()).toEqual(['aud', 'exp', 'iat', 'iss', 'jti', 'sid', 'sub', 'tv']);
    expect(payload).toMatchObject({
      iss: 'https://api.example.test',
      aud: 'nodectl',
      sub: userId,
      sid: sessionId,
      tv: 1,
      exp: payload.iat + ACCESS_TOKEN_LIFETIME_SECONDS,
    });
  });

  it('the first key of a fresh data directory is the Ed25519 pair the data directory made on first start', async () => {
    const f = await open();
    const { token } = await signedIn(f);
    const legacy = createPublicKey(readFileSync(f.layout.jwtPublicKeyFile, 'utf8'));
    await expect(
      jwtVerify(token, legacy, { algorithms: ['EdDSA'], currentDate: new Date(f.clock.now) }),
    ).resolves.toBeDefined();
  });

  it('refuses alg none and HS256 signed with the public key as the HMAC secret (algorithm confusion)', async () => {
    const f = await open();
    const { userId, sessionId, token } = await signedIn(f);
    const claims = { sid: sessionId, tv: 1 };
    const none = new UnsecuredJWT(claims)
      .setIssuer('https://api.example.test')
      .setAudience('nodectl')
      .setSubject(userId)
      .setJti('x')
      .setIssuedAt(T0 / 1000)
      .setExpirationTime(T0 / 1000 + 900)
      .encode();
    await expectUnauthenticated(verifyAccessToken(f.ctx, none));

    // The attacker knows the public key (it is in the JWKS) and signs HS256 with it, under the real kid.
    const { kid } = decodeProtectedHeader(token);
    const jwk = (await f.ctx.keys.jwks()).keys[0]!;
    const publicPem = createPublicKey({ key: jwk as never, format: 'jwk' })
      .export({ format: 'pem', type: 'spki' })
      .toString();
    const forged = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', kid, typ: 'at+jwt' })
      .setIssuer('https://api.example.test')
      .setAudience('nodectl')
      .setSubject(userId)
      .setJti('y')
      .setIssuedAt(T0 / 1000)
      .setExpirationTime(T0 / 1000 + 900)
      .sign(new TextEncoder().encode(publicPem));
    // The forgery is a correct HS256 MAC over the PEM, so only the verifier's rules can refuse it.
    const [h, p, s] = forged.split('.');
    expect(createHmac('sha256', publicPem).update(`${h}.${p}`).digest('base64url')).toBe(s);
    await expectUnauthenticated(verifyAccessToken(f.ctx, forged));
  });

  it('refuses a token signed by the right key but naming another issuer, audience or typ, and a tampered payload', async () => {
    const f = await open();
    const { userId, sessionId, token } = await signedIn(f);
    const key = await f.ctx.keys.signingKey();
    const base = () =>
      new SignJWT({ sid: sessionId, tv: 1 })
        .setSubject(userId)
        .setJti('z')
        .setIssuedAt(T0 / 1000)
        .setExpirationTime(T0 / 1000 + 900);
    const otherIssuer = await base()
      .setProtectedHeader({ alg: 'EdDSA', kid: key.kid, typ: 'at+jwt' })
      .setIssuer('https://evil.example')
      .setAudience('nodectl')
      .sign(key.privateKey);
    const otherAudience = await base()
      .setProtectedHeader({ alg: 'EdDSA', kid: key.kid, typ: 'at+jwt' })
      .setIssuer('https://api.example.test')
      .setAudience('another-api')
      .sign(key.privateKey);
    const otherTyp = await base()
      .setProtectedHeader({ alg: 'EdDSA', kid: key.kid, typ: 'JWT' })
      .setIssuer('https://api.example.test')
      .setAudience('nodectl')
      .sign(key.privateKey);
    for (const t of [otherIssuer, otherAudience, otherTyp]) await expectUnauthenticated(verifyAccessToken(f.ctx, t));
    const [h, , s] = token.split('.');
    const tampered = `${h}.${Buffer.from(JSON.stringify({ sub: 'usr_other', sid: sessionId, tv: 1 })).toString('base64url')}.${s}`;
    await expectUnauthenticated(verifyAccessToken(f.ctx, tampered));
  });

  it('refuses a token issued in the future beyond 60 s of clock skew (iat a year ahead), and accepts 60 s ahead', async () => {
    const f = await open();
    const { userId, sessionId } = await signedIn(f);
    const key = await f.ctx.keys.signingKey();
    const issuedAt = (seconds: number) =>
      new SignJWT({ sid: sessionId, tv: 1 })
        .setProtectedHeader({ alg: 'EdDSA', kid: key.kid, typ: 'at+jwt' })
        .setIssuer('https://api.example.test')
        .setAudience('nodectl')
        .setSubject(userId)
        .setJti('z')
        .setIssuedAt(seconds)
        .setExpirationTime(seconds + 900)
        .sign(key.privateKey);
    const now = T0 / 1000;
    await expectUnauthenticated(verifyAccessToken(f.ctx, await issuedAt(now + 365 * 86_400)), /issued in the future/);
    await expectUnauthenticated(verifyAccessToken(f.ctx, await issuedAt(now + 61)), /issued in the future/);
    await expect(verifyAccessToken(f.ctx, await issuedAt(now + 60))).resolves.toMatchObject({ issuedAt: now + 60 });
  });

  it('expire after 15 minutes: valid one second before, refused at exp with a message that says to refresh', async () => {
    const f = await open();
    const { token } = await signedIn(f);
    f.advance(15 * MINUTE - 1000);
    await expect(verifyAccessToken(f.ctx, token)).resolves.toBeDefined();
    f.advance(1000);
    await expectUnauthenticated(verifyAccessToken(f.ctx, token), /expired.*refresh/);
  });

  it('a rotated-away key still verifies the tokens it signed until they expire, then drops from the JWKS', async () => {
    const f = await open();
    const { token: before } = await signedIn(f);
    const oldKid = decodeProtectedHeader(before).kid;
    f.advance(5 * MINUTE);
    const rotation = await rotateSigningKey(f.layout, {
      algorithm: 'EdDSA',
      tokenLifetimeMs: 15 * MINUTE,
      now: f.clock.now,
    });
    expect(rotation.retired).toEqual([oldKid]);
    const { token: after } = await signedIn(f);
    expect(decodeProtectedHeader(after).kid).toBe(rotation.kid);
    await expect(verifyAccessToken(f.ctx, before)).resolves.toBeDefined();
    expect((await f.ctx.keys.jwks()).keys.map((k) => k.kid)).toEqual([rotation.kid, oldKid]);

    f.advance(15 * MINUTE); // 20 min after the old token was signed, 15 after the rotation
    expect((await f.ctx.keys.jwks()).keys.map((k) => k.kid)).toEqual([rotation.kid]);
    expect((await f.ctx.keys.list()).map((k) => [k.kid, k.state])).toEqual([
      [oldKid, 'expired'],
      [rotation.kid, 'active'],
    ]);
    // A second rotation deletes the file of the key that verifies nothing any more.
    const second = await rotateSigningKey(f.layout, {
      algorithm: 'EdDSA',
      tokenLifetimeMs: 15 * MINUTE,
      now: f.clock.now,
    });
    expect(second).toMatchObject({ retired: [rotation.kid], removed: [oldKid] });
  });

  it('a logout of the session or a token-version bump rejects a token at once, before it expires', async () => {
    const f = await open();
    const a = await signedIn(f);
    f.db.prepare('UPDATE sessions SET revoked_at = ? WHERE id = ?').run(f.clock.now, a.sessionId);
    await expectUnauthenticated(verifyAccessToken(f.ctx, a.token), /session/);
    const b = await signedIn(f);
    f.db.prepare('UPDATE users SET token_version = token_version + 1 WHERE id = ?').run(b.userId);
    await expectUnauthenticated(verifyAccessToken(f.ctx, b.token), /revoked/);
  });

  it('RS256 is selectable: tokens are RS256 under an RSA key, and an EdDSA token is then refused', async () => {
    const ed = await open();
    const edToken = (await signedIn(ed)).token;
    const rs = await open({ accessTokenAlgorithm: 'RS256' });
    const { token } = await signedIn(rs);
    expect(decodeProtectedHeader(token).alg).toBe('RS256');
    const jwks = await readJwks(rs.ctx);
    expect(jwks.keys).toMatchObject([{ kty: 'RSA', alg: 'RS256', use: 'sig' }]);
    // Public parts only: no private exponent or CRT factors.
    expect(Object.keys(jwks.keys[0]!).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
    expect(Object.keys((await readJwks(ed.ctx)).keys[0]!).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x']);
    await expect(verifyAccessToken(rs.ctx, token)).resolves.toBeDefined();
    await expectUnauthenticated(verifyAccessToken(rs.ctx, edToken));
  });

  it('an independent verifier (jose.createRemoteJWKSet over loopback HTTP) accepts tokens against jwks(), before and after a rotation', async () => {
    const f = await open();
    const server = await serveJson(() => jwksNow);
    servers.push(server);
    let jwksNow = await f.ctx.keys.jwks();
    const remote = createRemoteJWKSet(new URL(server.url));
    const options = {
      issuer: 'https://api.example.test',
      audience: 'nodectl',
      algorithms: ['EdDSA'],
      currentDate: new Date(f.clock.now),
    };
    const { token: first } = await signedIn(f);
    await expect(jwtVerify(first, remote, options)).resolves.toMatchObject({ protectedHeader: { alg: 'EdDSA' } });

    await rotateSigningKey(f.layout, { algorithm: 'EdDSA', tokenLifetimeMs: 15 * MINUTE, now: f.clock.now });
    jwksNow = await f.ctx.keys.jwks();
    const { token: second } = await signedIn(f);
    // A kid the cached set lacks makes jose fetch the JWKS again (after its 30 s cooldown).
    const fresh = createRemoteJWKSet(new URL(server.url));
    await expect(jwtVerify(second, fresh, options)).resolves.toBeDefined();
    await expect(jwtVerify(first, fresh, options)).resolves.toBeDefined();
    expect(server.hits()).toBe(2);
  });
});
