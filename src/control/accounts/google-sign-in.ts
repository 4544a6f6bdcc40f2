import { errors as joseErrors, jwtVerify } from 'jose';
import { z } from 'zod';
import { AppError } from '../../platform/errors/app-error.js';
import { newId, nowIso } from '../records/record-ids.js';
import { findAuthUserByEmail, markEmailVerified, readAuthUser, type AuthUser } from './account-users.js';
import type { AccountsContext } from './context.js';
import { completeSignIn } from './login.js';
import { GoogleSignInSchema, parseAccountInput } from './schemas.js';
import { revokeEveryUserSession } from './session-store.js';
import type { SignInResult } from './sessions.js';

const PROVIDER = 'google';
/** Google signs ID tokens with RS256; nothing else is accepted. */
const ID_TOKEN_ALGORITHMS = ['RS256'];

const IdTokenClaimsSchema = z.object({
  sub: z.string().min(1).max(255),
  email: z
    .email()
    .max(320)
    .transform((e) => e.toLowerCase()),
  // Google sends a boolean; some older tokens carried the string.
  email_verified: z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]).optional(),
});

/** A network failure reaching the JWKS (timeout, refused, non-200) is the service's problem, not the token's. */
function isKeyFetchFailure(error: unknown): boolean {
  if (error instanceof joseErrors.JWKSTimeout) return true;
  if (!(error instanceof joseErrors.JOSEError)) return true;
  return error.code === 'ERR_JOSE_GENERIC';
}

async function verifyGoogleIdToken(
  ctx: AccountsContext,
  idToken: string,
  clientId: string,
): Promise<z.infer<typeof IdTokenClaimsSchema>> {
  let payload: unknown;
  try {
    ({ payload } = await jwtVerify(idToken, ctx.google.keys, {
      issuer: ctx.google.issuers,
      audience: clientId,
      algorithms: ID_TOKEN_ALGORITHMS,
      currentDate: new Date(ctx.now()),
    }));
  } catch (error) {
    if (isKeyFetchFailure(error)) {
      ctx.logger.warn({ error: (error as Error).message }, 'cannot fetch the Google signing keys');
      throw new AppError(
        'service.unavailable',
        "Google sign-in cannot reach Google's signing keys right now; try again shortly.",
        { cause: error },
      );
    }
    throw new AppError(
      'auth.idp_token_invalid',
      error instanceof joseErrors.JWTExpired
        ? 'The Google ID token expired; sign in with Google again.'
        : 'The Google ID token is not valid for this service (signature, issuer or audience).',
      { cause: error },
    );
  }
  const claims = IdTokenClaimsSchema.safeParse(payload);
  if (!claims.success)
    throw new AppError(
      'auth.idp_token_invalid',
      'The Google ID token carries no usable sub and email; ask for the email scope.',
    );
  return claims.data;
}

/**
 * The account of a Google identity: the one already linked to its subject; else the account with
 * its (Google-verified) email, now linked; else a new account without a password. Linking an
 * account whose email was never verified also removes its password and ends its sessions:
 * whoever registered that address unverified may not be its owner (account pre-hijacking).
 */
function linkGoogleIdentity(ctx: AccountsContext, sub: string, email: string): AuthUser {
  const now = ctx.now();
  const userId = ctx.db
    .transaction((): string => {
      const linked = ctx.db
        .prepare('SELECT user_id FROM user_identities WHERE provider = ? AND subject = ?')
        .pluck()
        .get(PROVIDER, sub) as string | undefined;
      if (linked) return linked;
      let user = findAuthUserByEmail(ctx.db, email);
      if (user && user.emailVerifiedAt === null) {
        ctx.db.prepare('UPDATE users SET password_hash = NULL WHERE id = ?').run(user.id);
        revokeEveryUserSession(ctx.db, user.id, 'account_linked', now);
        markEmailVerified(ctx.db, user.id, now);
      }
      if (!user) {
        const id = newId('usr');
        ctx.db
          .prepare(
            'INSERT INTO users (id, email, password_hash, email_verified_at, created_at) VALUES (?, ?, NULL, ?, ?)',
          )
          .run(id, email, nowIso(now), nowIso(now));
        user = readAuthUser(ctx.db, id)!;
      }
      ctx.db
        .prepare('INSERT INTO user_identities (provider, subject, user_id, email, created_at) VALUES (?, ?, ?, ?, ?)')
        .run(PROVIDER, sub, user.id, email, now);
      return user.id;
    })
    .immediate();
  const user = readAuthUser(ctx.db, userId);
  if (!user) throw new AppError('auth.unauthenticated', 'The account linked to this Google identity no longer exists.');
  return user;
}

/**
 * POST /v1/auth/google `{idToken, totp?, recoveryCode?}`: verifies a Google ID token against the
 * configured JWKS, issuer(s) and client id (audience), requires a Google-verified email, links or
 * creates the account, and answers like login (2FA included).
 */
export async function googleSignIn(ctx: AccountsContext, input: unknown): Promise<SignInResult> {
  const { idToken, totp, recoveryCode } = parseAccountInput(GoogleSignInSchema, input, 'Google sign-in');
  const clientId = ctx.google.clientId;
  if (!clientId)
    throw new AppError(
      'auth.idp_unconfigured',
      'Google sign-in is off on this service: the operator sets googleClientId (NODECTL_GOOGLE_CLIENT_ID).',
    );
  const claims = await verifyGoogleIdToken(ctx, idToken, clientId);
  if (claims.email_verified !== true)
    throw new AppError(
      'auth.idp_email_unverified',
      `Google has not verified ${claims.email}; verify it with Google, or register with a password.`,
    );
  return completeSignIn(ctx, linkGoogleIdentity(ctx, claims.sub, claims.email), { totp, recoveryCode });
}
