import { createOrganization } from '../records/organizations.js';
import { createUser } from '../records/users.js';
import type { AccountsContext } from './context.js';
import { sendVerificationMail } from './email-verification.js';
import { parseAccountInput, RegisterSchema } from './schemas.js';

/**
 * POST /v1/auth/register `{email, password, orgName}`: creates the user and an organization it
 * owns (organization_owner), then mails an email verification token. 201 `{userId,
 * emailVerificationSent}`; a taken email is 422 validation.failed on `email`.
 */
export async function register(
  ctx: AccountsContext,
  input: unknown,
): Promise<{ userId: string; emailVerificationSent: boolean }> {
  const { email, password, orgName } = parseAccountInput(RegisterSchema, input, 'registration');
  const user = await createUser(ctx.db, { email, password }, ctx.now());
  try {
    createOrganization(ctx.db, { name: orgName, ownerEmail: email }, ctx.now());
  } catch (error) {
    // No user without the organization the request asked for: the registrant can simply retry.
    ctx.db.prepare('DELETE FROM users WHERE id = ?').run(user.id);
    throw error;
  }
  const emailVerificationSent = await sendVerificationMail(ctx, { userId: user.id, email: user.email });
  return { userId: user.id, emailVerificationSent };
}
