import { AppError } from '../../platform/errors/index.js';
import { deferAccountMail } from './account-mail.js';
import { markEmailVerified, readAuthUser, setPassword, verifyPasswordOrDummy } from './account-users.js';
import type { AccountsContext } from './context.js';
import { consumeMailToken } from './mail-tokens.js';
import { ChangePasswordSchema, ForgotPasswordSchema, parseAccountInput, ResetPasswordSchema } from './schemas.js';
import { revokeEveryUserSession } from './session-store.js';

/**
 * POST /v1/auth/password/change `{currentPassword, newPassword}`: sets the new password, ends every
 * session of the user (the caller's too) and bumps the token version, so every access token
 * issued before is refused at once. A wrong current password is 401 auth.invalid_credentials.
 */
export async function changePassword(ctx: AccountsContext, caller: { userId: string }, input: unknown): Promise<void> {
  const { currentPassword, newPassword } = parseAccountInput(ChangePasswordSchema, input, 'password change');
  const user = readAuthUser(ctx.db, caller.userId);
  const ok = await verifyPasswordOrDummy(currentPassword, user?.passwordHash, ctx.passwordCost);
  if (!user) throw new AppError('auth.unauthenticated', 'The account of this session no longer exists.');
  if (user.passwordHash === null)
    throw new AppError(
      'auth.invalid_credentials',
      'This account signs in with Google and has no password yet; set one through POST /v1/auth/password/forgot.',
    );
  if (!ok) throw new AppError('auth.invalid_credentials', 'The current password is wrong.');
  await setPassword(ctx.db, user.id, newPassword, ctx.passwordCost);
  revokeEveryUserSession(ctx.db, user.id, 'password_change', ctx.now());
}

/**
 * POST /v1/auth/password/forgot `{email}`: mails a reset token if the account exists. Answers the
 * same either way (202) after the same work: the request only defers the mail (the accounts.mail
 * job); the lookup, the token and the send happen there, so neither the answer nor its timing
 * tells whether the address has an account.
 */
export function forgotPassword(ctx: AccountsContext, input: unknown): void {
  const { email } = parseAccountInput(ForgotPasswordSchema, input, 'password reset');
  deferAccountMail(ctx, { kind: 'password_reset', email });
}

/**
 * POST /v1/auth/password/reset `{token, password}`: sets the password, ends every session and bumps
 * the token version. The mail reached the address, so the address counts as verified.
 */
export async function resetPassword(ctx: AccountsContext, input: unknown): Promise<void> {
  const { token, password } = parseAccountInput(ResetPasswordSchema, input, 'password reset');
  const subject = consumeMailToken(ctx.db, 'password_reset', token, ctx.now());
  const user = subject.userId ? readAuthUser(ctx.db, subject.userId) : undefined;
  if (!user || user.email !== subject.email.toLowerCase())
    throw new AppError('auth.mail_token_invalid', 'This token was sent to an address the account no longer has.');
  await setPassword(ctx.db, user.id, password, ctx.passwordCost);
  markEmailVerified(ctx.db, user.id, ctx.now());
  revokeEveryUserSession(ctx.db, user.id, 'password_reset', ctx.now());
}
