import {
  errors as joseErrors,
  jwtVerify,
  SignJWT,
  type FlattenedJWSInput,
  type JWK,
  type JWTHeaderParameters,
} from 'jose';
import { z } from 'zod';
import { AppError } from '../../platform/errors/index.js';
import { newUlid } from '../../platform/ids/index.js';
import { ACCESS_TOKEN_LIFETIME_SECONDS } from './access-token-lifetime.js';
import type { AccountsContext } from './context.js';
import { isSessionLive, readSession, readTokenVersion } from './session-store.js';

export { ACCESS_TOKEN_LIFETIME_SECONDS };

/** The JWT `typ` of access tokens (RFC 9068): a JWT of another kind signed by the same key is refused. */
const ACCESS_TOKEN_TYPE = 'at+jwt';

const ClaimsSchema = z.object({
  sub: z.string().min(1),
  sid: z.string().min(1),
  tv: z.number().int().positive(),
  jti: z.string().min(1),
  iat: z.number().int(),
  exp: z.number().int(),
});

export interface AccessTokenSubject {
  userId: string;
  sessionId: string;
  tokenVersion: number;
}

export interface IssuedAccessToken {
  accessToken: string;
  /** Seconds until it expires. */
  expiresIn: number;
}

/**
 * Signs an access token with the newest active key of the ring
 * (claims iss, aud, sub, sid, tv, iat, exp, jti; header kid).
 */
export async function signAccessToken(ctx: AccountsContext, subject: AccessTokenSubject): Promise<IssuedAccessToken> {
  const key = await ctx.keys.signingKey();
  const iat = Math.floor(ctx.now() / 1000);
  const accessToken = await new SignJWT({ sid: subject.sessionId, tv: subject.tokenVersion })
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: ACCESS_TOKEN_TYPE })
    .setIssuer(ctx.tokens.issuer)
    .setAudience(ctx.tokens.audience)
    .setSubject(subject.userId)
    .setJti(newUlid(ctx.now()))
    .setIssuedAt(iat)
    .setExpirationTime(iat + ACCESS_TOKEN_LIFETIME_SECONDS)
    .sign(key.privateKey);
  return { accessToken, expiresIn: ACCESS_TOKEN_LIFETIME_SECONDS };
}

/** GET /.well-known/jwks.json: the public keys that verify access tokens now (no private parts). */
export function readJwks(ctx: AccountsContext): Promise<{ keys: JWK[] }> {
  return ctx.keys.jwks();
}

export interface VerifiedAccessToken extends AccessTokenSubject {
  jti: string;
  /** Seconds since the epoch. */
  issuedAt: number;
  expiresAt: number;
}

/** Tolerated clock difference between the signer and this verifier; a token issued later than this ahead is refused. */
export const ACCESS_TOKEN_CLOCK_SKEW_SECONDS = 60;

const unauthenticated = (message: string, cause?: unknown) => new AppError('auth.unauthenticated', message, { cause });

/**
 * Checks a presented access token: signature by a key of the ring under exactly the configured
 * algorithm (alg none, HS256 and the other algorithm are refused before any key is used), typ,
 * iss, aud, exp and an iat not in the future (60 s skew); then that its session is live and the user's token version is unchanged (a
 * logout, logout-all or password change rejects it at once). Every failure is 401
 * auth.unauthenticated with a message that says what to do.
 */
export async function verifyAccessToken(ctx: AccountsContext, token: string): Promise<VerifiedAccessToken> {
  let payload: unknown;
  try {
    const getKey = async (header: JWTHeaderParameters, _token: FlattenedJWSInput) => {
      const key = typeof header.kid === 'string' ? await ctx.keys.verificationKey(header.kid) : undefined;
      if (!key) throw new joseErrors.JWKSNoMatchingKey();
      return key.publicKey;
    };
    ({ payload } = await jwtVerify(token, getKey, {
      algorithms: [ctx.tokens.algorithm],
      issuer: ctx.tokens.issuer,
      audience: ctx.tokens.audience,
      typ: ACCESS_TOKEN_TYPE,
      requiredClaims: ['sub', 'jti', 'iat', 'exp'],
      currentDate: new Date(ctx.now()),
    }));
  } catch (error) {
    if (error instanceof joseErrors.JWTExpired)
      throw unauthenticated('The access token expired; get a new one from POST /v1/auth/refresh.', error);
    throw unauthenticated('The access token is not valid here; sign in again or refresh it.', error);
  }
  const claims = ClaimsSchema.safeParse(payload);
  if (!claims.success) throw unauthenticated('The access token lacks the sub, sid or tv claim; sign in again.');
  const { sub, sid, tv, jti, iat, exp } = claims.data;
  // jose checks iat only against a maximum age; a token from the future would outlive its 15 minutes.
  if (iat > Math.floor(ctx.now() / 1000) + ACCESS_TOKEN_CLOCK_SKEW_SECONDS)
    throw unauthenticated('The access token was issued in the future (check the server clock); sign in again.');
  const session = readSession(ctx.db, sid);
  if (!session || session.userId !== sub || !isSessionLive(session, ctx.now()))
    throw unauthenticated('The session of this access token has ended; sign in again.');
  if (readTokenVersion(ctx.db, sub) !== tv)
    throw unauthenticated('The access token was revoked (password change or sign-out everywhere); sign in again.');
  return { userId: sub, sessionId: sid, tokenVersion: tv, jti, issuedAt: iat, expiresAt: exp };
}
