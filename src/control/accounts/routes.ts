import fastifyCookie from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { RoutePlugin } from '../../platform/app/index.js';
import type { RouteAccess } from '../access/index.js';
import { AppError, isAppError, type ErrorCode } from '../../platform/errors/index.js';
import { sendData, dataEnvelope, NoContent } from '../../platform/http/index.js';
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
  AcceptedSchema,
  RegisteredSchema,
  AccountProfileSchema,
  ActivateTotpSchema,
  ChangePasswordSchema,
  EmailVerifiedSchema,
  ForgotPasswordSchema,
  GoogleSignInSchema,
  LoginSchema,
  RecoveryCodesSchema,
  RefreshRequestSchema,
  RegisterSchema,
  ResetPasswordSchema,
  SecondFactorSchema,
  SessionGrantSchema,
  TotpSetupSchema,
  TwoFactorStatusSchema,
  VerifyEmailSchema,
} from './schemas.js';
import { logout, logoutAll, refreshSession, type SignInResult } from './sessions.js';
import { activateTotp, beginTotpSetup, disableTotp, readTwoFactorStatus, regenerateRecoveryCodes } from './totp.js';

/** Anyone may call (docs/contract.md#routes): register, login, refresh, the mailed-token routes. */
const ANONYMOUS: RouteAccess = { minRole: 'anonymous', access: 'mutate' };
/** A signed-in user, never an API key (docs/contract.md#principals). */
const USER_READ: RouteAccess = { minRole: 'authenticated', access: 'read', apiKeys: false };
const USER_MUTATE: RouteAccess = { minRole: 'authenticated', access: 'mutate', apiKeys: false };

/** What the routes answer beyond access, validation and rate limits (src/daemon/openapi/route-errors.ts adds those). */
const MAIL_TOKEN_ERRORS: readonly ErrorCode[] = [
  'auth.mail_token_invalid',
  'auth.mail_token_expired',
  'auth.mail_token_used',
];
const SECOND_FACTOR_ERRORS: readonly ErrorCode[] = ['auth.mfa_required', 'auth.mfa_invalid', 'auth.factor_locked'];
/** Turning 2FA off and new recovery codes need 2FA on and a current code. */
const CURRENT_FACTOR_ERRORS: readonly ErrorCode[] = ['auth.mfa_not_enrolled', 'auth.mfa_invalid', 'auth.factor_locked'];

const TAGS = ['auth'];
const SESSION_ANSWER = dataEnvelope(SessionGrantSchema).describe(
  'A new session: the access token and a refresh token (also set as the svc_refresh cookie)',
);
const NEW_RECOVERY_CODES = dataEnvelope(RecoveryCodesSchema).describe('The new recovery codes, shown only this once');

/** The signed-in user a user route acts for; the route's declared access already refused anyone else. */
function callerOf(request: FastifyRequest): { userId: string; sessionId: string } {
  const principal = request.principal;
  if (principal.kind !== 'user')
    throw new AppError('auth.forbidden', 'Only a signed-in user can call this route (docs/contract.md#principals).');
  return { userId: principal.userId, sessionId: principal.sessionId };
}

function sendNoContent(reply: FastifyReply): FastifyReply {
  return reply.code(204).send();
}

/**
 * The 16 /v1/auth routes of docs/contract.md#routes over the account functions (docs/auth.md).
 * Each declares its body, its answers and its error codes with the schemas of ./schemas.ts, which
 * validate the request and make its OpenAPI description. Sign-ins set the svc_refresh cookie;
 * login, register and forgot-password are rate limited per client address and per email, Google
 * sign-in per address (docs/contract.md#rate-limits).
 */
export const accountRoutes: RoutePlugin = async (plainApp, { services }) => {
  const kit = await prepareAuthRoutes(plainApp, services);
  // In the order of docs/contract.md#routes, which the OpenAPI document and docs/api.md keep.
  registerAccountCreationRoutes(kit);
  registerSignInRoutes(kit);
  registerSessionRoutes(kit);
  registerPasswordRoutes(kit);
  registerTwoFactorRoutes(kit);
};

/** What the /v1/auth route groups share: the zod-typed app, the accounts context, the settings and two helpers. */
type AuthRouteKit = Awaited<ReturnType<typeof prepareAuthRoutes>>;

/**
 * Opens the accounts context (closed with the app) and the cookie plugin, and makes the helpers
 * of the routes: `limit` applies an auth rate limit, `signedIn` answers a new session and sets
 * its refresh cookie.
 */
async function prepareAuthRoutes(
  plainApp: Parameters<RoutePlugin>[0],
  services: Parameters<RoutePlugin>[1]['services'],
) {
  const ctx = await accountsContextOf(services, plainApp.server);
  plainApp.addHook('onClose', () => closeAccountsContext(services));
  await plainApp.register(fastifyCookie);
  const app = plainApp.withTypeProvider<ZodTypeProvider>();
  const settings = services.config.settings;

  const limit = (route: RateLimitedAuthRoute, request: FastifyRequest, reply: FastifyReply, email?: string) =>
    enforceAuthRateLimits(
      services.rateLimits,
      route,
      {
        address: request.ip,
        ...(email === undefined ? {} : { email }),
        perEmail: settings.authRateLimitPerMinute,
        perAddress: settings.authAddressRateLimitPerMinute,
        now: ctx.now(),
      },
      reply,
    );
  const signedIn = (request: FastifyRequest, reply: FastifyReply, result: SignInResult) => {
    setRefreshCookie(reply, settings, result.grant.refreshToken, result.sessionExpiresAt, ctx.now());
    return sendData(request, reply, result.grant);
  };
  return { app, ctx, settings, limit, signedIn };
}

/** Register an account, and verify its email address with the mailed token. */
function registerAccountCreationRoutes({ app, ctx, limit }: AuthRouteKit): void {
  app.post(
    '/v1/auth/register',
    {
      config: { access: ANONYMOUS },
      schema: {
        summary:
          'Create an account and an organization it owns, and mail a verification token; an address that has an account gets a mail instead. Answers alike either way',
        tags: TAGS,
        body: RegisterSchema,
        response: {
          201: dataEnvelope(RegisteredSchema).describe(
            'Check the mailbox: a verification mail, or a notice when the address already has an account',
          ),
        },
      },
    },
    async (request, reply) => {
      await limit('register', request, reply, request.body.email);
      const { answer } = await register(ctx, request.body);
      return sendData(request, reply, answer, 201);
    },
  );

  app.post(
    '/v1/auth/verify-email',
    {
      config: { access: ANONYMOUS, errors: MAIL_TOKEN_ERRORS },
      schema: {
        summary: 'Mark the email address verified with the mailed token; joins organizations that invited it',
        tags: TAGS,
        body: VerifyEmailSchema,
        response: { 200: dataEnvelope(EmailVerifiedSchema).describe('The address is verified') },
      },
    },
    async (request, reply) => sendData(request, reply, verifyEmail(ctx, request.body)),
  );
}

/** The three ways to a session: login, Google sign-in, refresh. */
function registerSignInRoutes({ app, ctx, settings, limit, signedIn }: AuthRouteKit): void {
  app.post(
    '/v1/auth/login',
    {
      config: { access: ANONYMOUS, errors: ['auth.invalid_credentials', ...SECOND_FACTOR_ERRORS] },
      schema: {
        summary:
          'Sign in with email and password (and a TOTP or recovery code when 2FA is on); sets the svc_refresh cookie',
        tags: TAGS,
        body: LoginSchema,
        response: { 200: SESSION_ANSWER },
      },
    },
    async (request, reply) => {
      await limit('login', request, reply, request.body.email);
      return signedIn(request, reply, await login(ctx, request.body));
    },
  );

  app.post(
    '/v1/auth/google',
    {
      // auth.unauthenticated: the account linked to the Google identity was deleted meanwhile.
      config: {
        access: ANONYMOUS,
        errors: [
          'auth.idp_unconfigured',
          'auth.idp_token_invalid',
          'auth.idp_email_unverified',
          'auth.unauthenticated',
          ...SECOND_FACTOR_ERRORS,
        ],
      },
      schema: {
        summary:
          'Sign in with a Google ID token: links or creates the account of its verified email; answers like login',
        tags: TAGS,
        body: GoogleSignInSchema,
        response: { 200: SESSION_ANSWER },
      },
    },
    async (request, reply) => {
      await limit('google', request, reply);
      return signedIn(request, reply, await googleSignIn(ctx, request.body));
    },
  );

  app.post(
    '/v1/auth/refresh',
    {
      config: { access: ANONYMOUS, errors: ['auth.unauthenticated', 'auth.refresh_reused'] },
      schema: {
        summary: 'Trade the refresh token (svc_refresh cookie or body) for a new grant; each refresh token works once',
        tags: TAGS,
        body: RefreshRequestSchema,
        response: { 200: SESSION_ANSWER },
      },
    },
    async (request, reply) => {
      const refreshToken = presentedRefreshToken(request, request.body);
      if (!refreshToken)
        throw new AppError(
          'auth.unauthenticated',
          'Send the refresh token as the svc_refresh cookie or as {"refreshToken": "..."}.',
        );
      try {
        return signedIn(request, reply, await refreshSession(ctx, refreshToken));
      } catch (error) {
        // A dead refresh token stays dead: the browser should stop sending it.
        if (isAppError(error) && (error.code === 'auth.refresh_reused' || error.code === 'auth.unauthenticated'))
          clearRefreshCookie(reply, settings);
        throw error;
      }
    },
  );
}

/** Logout, logout everywhere, and the signed-in user's profile. */
function registerSessionRoutes({ app, ctx, settings }: AuthRouteKit): void {
  app.post(
    '/v1/auth/logout',
    {
      config: { access: USER_MUTATE },
      schema: {
        summary: "End the caller's session: its access and refresh tokens stop working",
        tags: TAGS,
        response: { 204: NoContent },
      },
    },
    async (request, reply) => {
      logout(ctx, callerOf(request));
      clearRefreshCookie(reply, settings);
      return sendNoContent(reply);
    },
  );

  app.post(
    '/v1/auth/logout-all',
    {
      config: { access: USER_MUTATE },
      schema: {
        summary: 'End every session of the user; every access token issued before stops working',
        tags: TAGS,
        response: { 204: NoContent },
      },
    },
    async (request, reply) => {
      logoutAll(ctx, callerOf(request));
      clearRefreshCookie(reply, settings);
      return sendNoContent(reply);
    },
  );

  app.get(
    '/v1/auth/me',
    // user.not_found: the account was deleted after its access token was issued.
    {
      config: { access: USER_READ, errors: ['user.not_found'] },
      schema: {
        summary: 'The signed-in user and the organizations they belong to',
        tags: TAGS,
        response: { 200: dataEnvelope(AccountProfileSchema).describe('The user and their memberships') },
      },
    },
    async (request, reply) => sendData(request, reply, readAccountProfile(ctx, callerOf(request))),
  );
}

/** Change a password, mail a reset token, reset with it. */
function registerPasswordRoutes({ app, ctx, settings, limit }: AuthRouteKit): void {
  app.post(
    '/v1/auth/password/change',
    {
      config: { access: USER_MUTATE, errors: ['auth.invalid_credentials'] },
      schema: {
        summary: 'Change the password with the current one; ends every session of the user, the caller included',
        tags: TAGS,
        body: ChangePasswordSchema,
        response: { 204: NoContent },
      },
    },
    async (request, reply) => {
      await changePassword(ctx, callerOf(request), request.body);
      // Every session of the user ended, the caller's too.
      clearRefreshCookie(reply, settings);
      return sendNoContent(reply);
    },
  );

  app.post(
    '/v1/auth/password/forgot',
    {
      config: { access: ANONYMOUS },
      schema: {
        summary: 'Mail a password reset token if the address has an account; answers the same either way',
        tags: TAGS,
        body: ForgotPasswordSchema,
        response: {
          202: dataEnvelope(AcceptedSchema).describe('Accepted: a reset mail goes out if the address has an account'),
        },
      },
    },
    async (request, reply) => {
      await limit('forgot', request, reply, request.body.email);
      forgotPassword(ctx, request.body);
      return sendData(request, reply, { status: 'accepted' }, 202);
    },
  );

  app.post(
    '/v1/auth/password/reset',
    {
      config: { access: ANONYMOUS, errors: MAIL_TOKEN_ERRORS },
      schema: {
        summary: 'Set a new password with the mailed reset token; ends every session and marks the address verified',
        tags: TAGS,
        body: ResetPasswordSchema,
        response: { 204: NoContent },
      },
    },
    async (request, reply) => {
      await resetPassword(ctx, request.body);
      return sendNoContent(reply);
    },
  );
}

/** Two-factor sign-in: its state, setup, activation, turning it off, new recovery codes. */
function registerTwoFactorRoutes({ app, ctx }: AuthRouteKit): void {
  app.get(
    '/v1/auth/2fa',
    {
      config: { access: USER_READ },
      schema: {
        summary: 'Whether two-factor sign-in is on or being set up, and how many recovery codes are left',
        tags: TAGS,
        response: { 200: dataEnvelope(TwoFactorStatusSchema).describe("The user's two-factor state") },
      },
    },
    async (request, reply) => sendData(request, reply, readTwoFactorStatus(ctx, callerOf(request))),
  );

  app.post(
    '/v1/auth/2fa/setup',
    {
      config: { access: USER_MUTATE, errors: ['user.not_found', 'auth.mfa_already_enabled'] },
      schema: {
        summary: 'Start two-factor setup: a new TOTP secret, not in force until activated',
        tags: TAGS,
        response: {
          200: dataEnvelope(TotpSetupSchema).describe(
            'The new secret; add it to an authenticator app, then activate with its first code',
          ),
        },
      },
    },
    async (request, reply) => sendData(request, reply, beginTotpSetup(ctx, callerOf(request))),
  );

  app.post(
    '/v1/auth/2fa/activate',
    {
      config: {
        access: USER_MUTATE,
        errors: ['auth.mfa_not_enrolled', 'auth.mfa_already_enabled', 'auth.mfa_invalid', 'auth.factor_locked'],
      },
      schema: {
        summary:
          'Turn two-factor sign-in on with the first code of the authenticator app; answers 10 recovery codes, once',
        tags: TAGS,
        body: ActivateTotpSchema,
        response: { 200: NEW_RECOVERY_CODES },
      },
    },
    async (request, reply) => sendData(request, reply, activateTotp(ctx, callerOf(request), request.body)),
  );

  app.post(
    '/v1/auth/2fa/disable',
    {
      config: { access: USER_MUTATE, errors: CURRENT_FACTOR_ERRORS },
      schema: {
        summary: 'Turn two-factor sign-in off with a current TOTP or recovery code',
        tags: TAGS,
        body: SecondFactorSchema,
        response: { 204: NoContent },
      },
    },
    async (request, reply) => {
      disableTotp(ctx, callerOf(request), request.body);
      return sendNoContent(reply);
    },
  );

  app.post(
    '/v1/auth/2fa/recovery-codes',
    {
      config: { access: USER_MUTATE, errors: CURRENT_FACTOR_ERRORS },
      schema: {
        summary: 'Replace every recovery code with 10 new ones (shown once), with a current TOTP or recovery code',
        tags: TAGS,
        body: SecondFactorSchema,
        response: { 200: NEW_RECOVERY_CODES },
      },
    },
    async (request, reply) => sendData(request, reply, regenerateRecoveryCodes(ctx, callerOf(request), request.body)),
  );
}

/**
 * GET /.well-known/jwks.json: the public keys that verify access tokens (docs/auth.md). A bare
 * RFC 7517 key set, not the envelope, since JWKS clients read `keys` at the top; cached briefly,
 * because a rotation adds a key (clients also re-fetch on a kid they do not know).
 */
export const jwksRoutes: RoutePlugin = async (app, { services }) => {
  const ctx = await accountsContextOf(services, app.server);
  app.get('/.well-known/jwks.json', async (_request, reply) =>
    reply
      .header('cache-control', 'public, max-age=60')
      .type('application/json')
      .send(await readJwks(ctx)),
  );
};
