import { createOrganization, createUser } from '../records/index.js';
import { deferAccountMail } from './account-mail.js';
import { findAuthUserByEmail, verifyPasswordOrDummy } from './account-users.js';
import type { AccountsContext } from './context.js';
import { parseAccountInput, RegisterSchema } from './schemas.js';

/**
 * POST /v1/auth/register `{email, password, orgName}`: creates the user and an organization it
 * owns (organization_owner) and mails an email verification token. An address that has an account
 * gets a mail telling its owner instead, after the same password hashing, and the route answers
 * both alike (202 accepted), so register does not tell whether an address has an account.
 * Resolves the account's id (new or existing) for callers in-process; it never reaches the answer.
 */
export async function register(ctx: AccountsContext, input: unknown): Promise<{ userId: string; created: boolean }> {
  const { email, password, orgName } = parseAccountInput(RegisterSchema, input, 'registration');
  const existing = findAuthUserByEmail(ctx.db, email);
  if (existing) return attemptOnTakenAddress(ctx, existing.id, password);
  let user;
  try {
    user = await createUser(ctx.db, { email, password }, ctx.now());
  } catch (error) {
    // Another registration of the address won the race while the password was hashed.
    const taken = findAuthUserByEmail(ctx.db, email);
    if (!taken) throw error;
    deferAccountMail(ctx, { kind: 'registration_attempt', userId: taken.id });
    return { userId: taken.id, created: false };
  }
  try {
    createOrganization(ctx.db, { name: orgName, ownerEmail: email }, ctx.now());
  } catch (error) {
    // No user without the organization the request asked for: the registrant can simply retry.
    ctx.db.prepare('DELETE FROM users WHERE id = ?').run(user.id);
    throw error;
  }
  deferAccountMail(ctx, { kind: 'email_verification', userId: user.id });
  return { userId: user.id, created: true };
}

/** The scrypt work a new account's password costs, then the owner's mail. */
async function attemptOnTakenAddress(
  ctx: AccountsContext,
  userId: string,
  password: string,
): Promise<{ userId: string; created: boolean }> {
  await verifyPasswordOrDummy(password, undefined);
  deferAccountMail(ctx, { kind: 'registration_attempt', userId });
  return { userId, created: false };
}
