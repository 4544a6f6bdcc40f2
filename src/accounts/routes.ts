import fastifyCookie from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { RoutePlugin } from '../app/route-plugin.js';
import type { RouteAccess } from '../auth/route-access.js';
import { AppError, isAppError } from '../errors/app-error.js';
import { sendData } from '../http/envelope.js';
import { readJwks } from './access-tokens.js';
import { verifyEmail } from './email-verification.js';
import { googleSignIn } from './google-sign-in.js';
import { accountsContextOf, closeAccountsContext } from './http-context.js';
import { login } from './login.js';
import { changePassword, forgotPassword, resetPassword } from './passwords.js';
import { readAccountProfile } from './profile.js';
import { enforceAuthRateLimits, type RateLimitedAuthRoute } from './rate-limits.js';
import { clearRefreshCookie, presentedRefreshToken, setRefreshCookie } from './refresh-cookie.js';
import { register } from './register.js';
import {
  ActivateTotpSchema,
  ChangePasswordSchema,
  ForgotPasswordSchema,
  GoogleSignInSchema,
  LoginSchema,
  RefreshSchema,
  RegisterSchema,
  ResetPasswordSchema,
  SecondFactorSchema,
  VerifyEmailSchema,
} from './schemas.js';
import { logout, logoutAll, refreshSession, type SignInResult } from './sessions.js';
import { activateTotp, beginTotpSetup, disableTotp, readTwoFactorStatus, regenerateRecoveryCodes } from './totp.js';

/** Anyone may call (docs/contract.md#routes): register, login, refresh, the mailed-token routes. */
const ANONYMOUS: RouteAccess = { minRole: 'anonymous', access: 'mutate' };
/** A signed-in user, never an API key (docs/contract.md#principals). */
const USER_READ: RouteAccess = { minRole: 'authenticated', access: 'read', apiKeys: false };
const USER_MUTATE: RouteAccess = { minRole: 'authenticated', access: 'mutate', apiKeys: false };

/** Refresh takes the svc_refresh cookie or `{refreshToken}`; a cookie-only call sends no body (or `{}`). */
const RefreshRequestSchema = RefreshSchema.partial().optional();

type Body<S extends z.ZodType> = { Body: z.output<S> };

/** The signed-in user a user route acts for; the route's declared access already refused anyone else. */
function callerOf(request: FastifyRequest): { userId: string; sessionId: string } {
  const principal = request.principal;
  if (principal.kind !== 'user') throw new AppError('auth.forbidden', 'Only a signed-in user can call this route (docs/contract.md#principals).');
  return { userId: principal.userId, sessionId: principal.sessionId };
}

function sendNoContent(reply: FastifyReply): FastifyReply {
  return reply.code(204).send();
}

/**
 * The 16 /v1/auth routes of docs/contract.md#routes over the account functions (docs/auth.md).
 * Bodies are validated by their schemas in ./schemas.ts, declared on each route. Sign-ins set the
 * svc_refresh cookie; login, register and forgot-password are rate limited per client address and
 * per email (docs/contract.md#rate-limits).
 */
export const accountRoutes: RoutePlugin = async (app, { services }) => {
  const ctx = await accountsContextOf(services, app.server);
  app.addHook('onClose', () => closeAccountsContext(services));
  await app.register(fastifyCookie);
  const settings = services.config.settings;

  const limit = (route: RateLimitedAuthRoute, request: FastifyRequest, reply: FastifyReply, email: string) =>
    enforceAuthRateLimits(services.rateLimits, route, { address: request.ip, email, perMinute: settings.authRateLimitPerMinute, now: ctx.now() }, reply);
  const signedIn = (request: FastifyRequest, reply: FastifyReply, result: SignInResult) => {
    setRefreshCookie(reply, settings, result.grant.refreshToken, result.sessionExpiresAt, ctx.now());
    return sendData(request, reply, result.grant);
  };

  app.post<Body<typeof RegisterSchema>>('/v1/auth/register', { config: { access: ANONYMOUS }, schema: { body: RegisterSchema } }, async (request, reply) => {
    await limit('register', request, reply, request.body.email);
    return sendData(request, reply, await register(ctx, request.body), 201);
  });

  app.post<Body<typeof VerifyEmailSchema>>('/v1/auth/verify-email', { config: { access: ANONYMOUS }, schema: { body: VerifyEmailSchema } }, async (request, reply) =>
    sendData(request, reply, verifyEmail(ctx, request.body)),
  );

  app.post<Body<typeof LoginSchema>>('/v1/auth/login', { config: { access: ANONYMOUS }, schema: { body: LoginSchema } }, async (request, reply) => {
    await limit('login', request, reply, request.body.email);
    return signedIn(request, reply, await login(ctx, request.body));
  });

  app.post<Body<typeof GoogleSignInSchema>>('/v1/auth/google', { config: { access: ANONYMOUS }, schema: { body: GoogleSignInSchema } }, async (request, reply) =>
    signedIn(request, reply, await googleSignIn(ctx, request.body)),
  );

  app.post<Body<typeof RefreshRequestSchema>>('/v1/auth/refresh', { config: { access: ANONYMOUS }, schema: { body: RefreshRequestSchema } }, async (request, reply) => {
    const refreshToken = presentedRefreshToken(request, request.body);
    if (!refreshToken) throw new AppError('auth.unauthenticated', 'Send the refresh token as the svc_refresh cookie or as {"refreshToken": "..."}.');
    try {
      return signedIn(request, reply, await refreshSession(ctx, refreshToken));
    } catch (error) {
      // A dead refresh token stays dead: the browser should stop sending it.
      if (isAppError(error) && (error.code === 'auth.refresh_reused' || error.code === 'auth.unauthenticated')) clearRefreshCookie(reply, settings);
      throw error;
    }
  });

  app.post('/v1/auth/logout', { config: { access: USER_MUTATE } }, async (request, reply) => {
    logout(ctx, callerOf(request));
    clearRefreshCookie(reply, settings);
    return sendNoContent(reply);
  });

  app.post('/v1/auth/logout-all', { config: { access: USER_MUTATE } }, async (request, reply) => {
    logoutAll(ctx, callerOf(request));
    clearRefreshCookie(reply, settings);
    return sendNoContent(reply);
  });

  app.get('/v1/auth/me', { config: { access: USER_READ } }, async (request, reply) => sendData(request, reply, readAccountProfile(ctx, callerOf(request))));

  app.post<Body<typeof ChangePasswordSchema>>('/v1/auth/password/change', { config: { access: USER_MUTATE }, schema: { body: ChangePasswordSchema } }, async (request, reply) => {
    await changePassword(ctx, callerOf(request), request.body);
    // Every session of the user ended, the caller's too.
    clearRefreshCookie(reply, settings);
    return sendNoContent(reply);
  });

  app.post<Body<typeof ForgotPasswordSchema>>('/v1/auth/password/forgot', { config: { access: ANONYMOUS }, schema: { body: ForgotPasswordSchema } }, async (request, reply) => {
    await limit('forgot', request, reply, request.body.email);
    forgotPassword(ctx, request.body);
    return sendData(request, reply, { status: 'accepted' }, 202);
  });

  app.post<Body<typeof ResetPasswordSchema>>('/v1/auth/password/reset', { config: { access: ANONYMOUS }, schema: { body: ResetPasswordSchema } }, async (request, reply) => {
    await resetPassword(ctx, request.body);
    return sendNoContent(reply);
  });

  app.get('/v1/auth/2fa', { config: { access: USER_READ } }, async (request, reply) => sendData(request, reply, readTwoFactorStatus(ctx, callerOf(request))));

  app.post('/v1/auth/2fa/setup', { config: { access: USER_MUTATE } }, async (request, reply) => sendData(request, reply, beginTotpSetup(ctx, callerOf(request))));

  app.post<Body<typeof ActivateTotpSchema>>('/v1/auth/2fa/activate', { config: { access: USER_MUTATE }, schema: { body: ActivateTotpSchema } }, async (request, reply) =>
    sendData(request, reply, activateTotp(ctx, callerOf(request), request.body)),
  );

  app.post<Body<typeof SecondFactorSchema>>('/v1/auth/2fa/disable', { config: { access: USER_MUTATE }, schema: { body: SecondFactorSchema } }, async (request, reply) => {
    disableTotp(ctx, callerOf(request), request.body);
    return sendNoContent(reply);
  });

  app.post<Body<typeof SecondFactorSchema>>('/v1/auth/2fa/recovery-codes', { config: { access: USER_MUTATE }, schema: { body: SecondFactorSchema } }, async (request, reply) =>
    sendData(request, reply, regenerateRecoveryCodes(ctx, callerOf(request), request.body)),
  );
};

/**
 * GET /.well-known/jwks.json: the public keys that verify access tokens (docs/auth.md). A bare
 * RFC 7517 key set, not the envelope, since JWKS clients read `keys` at the top; cached briefly,
 * because a rotation adds a key (clients also re-fetch on a kid they do not know).
 */
export const jwksRoutes: RoutePlugin = async (app, { services }) => {
  const ctx = await accountsContextOf(services, app.server);
  app.get('/.well-known/jwks.json', async (_request, reply) => reply.header('cache-control', 'public, max-age=60').type('application/json').send(await readJwks(ctx)));
};
