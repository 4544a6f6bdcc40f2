import { AppError } from '../../platform/errors/index.js';
import { acceptPendingInvitations } from '../records/index.js';
import { markEmailVerified, readAuthUser } from './account-users.js';
import type { AccountsContext } from './context.js';
import { consumeMailToken } from './mail-tokens.js';
import { parseAccountInput, VerifyEmailSchema } from './schemas.js';

/**
 * POST /v1/auth/verify-email `{token}`: marks the address verified; organizations
 * that invited it are joined (docs/organizations.md "Invitations").
 */
export function verifyEmail(
  ctx: AccountsContext,
  input: unknown,
): { userId: string; email: string; emailVerified: true } {
  const { token } = parseAccountInput(VerifyEmailSchema, input, 'email verification');
  const subject = consumeMailToken(ctx.db, 'email_verification', token, ctx.now());
  const user = subject.userId ? readAuthUser(ctx.db, subject.userId) : undefined;
  if (!user || user.email !== subject.email.toLowerCase())
    throw new AppError('auth.mail_token_invalid', 'This token was sent to an address the account no longer has.');
  markEmailVerified(ctx.db, user.id, ctx.now());
  acceptPendingInvitations(ctx.db, { userId: user.id, email: user.email }, ctx.now());
  return { userId: user.id, email: user.email, emailVerified: true };
}
