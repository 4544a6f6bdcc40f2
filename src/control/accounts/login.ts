import { AppError } from '../../platform/errors/index.js';
import { findAuthUserByEmail, verifyPasswordOrDummy, type AuthUser } from './account-users.js';
import type { AccountsContext } from './context.js';
import { LoginSchema, parseAccountInput } from './schemas.js';
import { startSession, type SignInResult } from './sessions.js';
import { checkSecondFactor } from './totp.js';

/**
 * The second step every sign-in shares: with 2FA on, no code is 401 auth.mfa_required
 * (details.mfa = "totp") and a wrong or spent one is 401 auth.mfa_invalid; then a session starts.
 */
export async function completeSignIn(
  ctx: AccountsContext,
  user: AuthUser,
  factor: { totp?: string | undefined; recoveryCode?: string | undefined },
): Promise<SignInResult> {
  const check = checkSecondFactor(ctx, user.id, factor);
  if (check === 'missing')
    throw new AppError(
      'auth.mfa_required',
      'This account has two-factor sign-in: send the code of your authenticator app as totp, or a recoveryCode.',
      { details: { mfa: 'totp' } },
    );
  if (check === 'invalid')
    throw new AppError(
      'auth.mfa_invalid',
      'The code is wrong or already used; send the current code of your authenticator app or an unused recovery code.',
    );
  return startSession(ctx, user);
}

/**
 * POST /v1/auth/login `{email, password, totp?, recoveryCode?}`. An unknown email and a wrong
 * password give the same 401 auth.invalid_credentials after the same scrypt work, so neither the
 * answer nor its timing tells whether an account exists.
 */
export async function login(ctx: AccountsContext, input: unknown): Promise<SignInResult> {
  const { email, password, totp, recoveryCode } = parseAccountInput(LoginSchema, input, 'login');
  const user = findAuthUserByEmail(ctx.db, email);
  const ok = await verifyPasswordOrDummy(password, user?.passwordHash, ctx.passwordCost);
  if (!user || !ok) throw new AppError('auth.invalid_credentials', 'The email or password is wrong.');
  return completeSignIn(ctx, user, { totp, recoveryCode });
}
