import { createOrganization, createUser, hashPassword, newId } from '../records/index.js';
import { deferAccountMail } from './account-mail.js';
import { findAuthUserByEmail, verifyPasswordOrDummy } from './account-users.js';
import type { AccountsContext } from './context.js';
import { parseAccountInput, RegisterSchema } from './schemas.js';

/**
 * POST /v1/auth/register `{email, password, orgName}`: creates the user and an organization it
 * owns (organization_owner) and mails an email verification token. An address that has an account
 * gets a mail telling its owner instead, after the same password hashing, and an answer of the
 * same shape with a user id that names nobody (the contract's 201 `{userId, emailVerificationSent}`),
 * so register does not tell whether an address has an account. `userId` is the account's id (new
 * or existing) for callers in-process; only `answer` reaches the client.
 */
export async function register(ctx: AccountsContext, input: unknown): Promise<Registration> {
  const { email, password, orgName } = parseAccountInput(RegisterSchema, input, 'registration');
  const existing = findAuthUserByEmail(ctx.db, email);
  if (existing) return attemptOnTakenAddress(ctx, existing.id, password);
  let user;
  try {
    user = await createUser(ctx.db, { email, password }, ctx.now(), (pw) => hashPassword(pw, ctx.passwordCost));
  } catch (error) {
    // Another registration of the address won the race while the password was hashed.
    const taken = findAuthUserByEmail(ctx.db, email);
    if (!taken) throw error;
    deferAccountMail(ctx, { kind: 'registration_attempt', userId: taken.id });
    return registrationOfTakenAddress(taken.id);
  }
  try {
    createOrganization(ctx.db, { name: orgName, ownerEmail: email }, ctx.now());
  } catch (error) {
    // No user without the organization the request asked for: the registrant can simply retry.
    ctx.db.prepare('DELETE FROM users WHERE id = ?').run(user.id);
    throw error;
  }
  deferAccountMail(ctx, { kind: 'email_verification', userId: user.id });
  return { userId: user.id, created: true, answer: { userId: user.id, emailVerificationSent: true } };
}

/** What register did, and the answer the client gets (alike for a new and a taken address). */
export interface Registration {
  userId: string;
  created: boolean;
  answer: { userId: string; emailVerificationSent: true };
}

/** A taken address's registration: the owner's id in process, a fresh id that names nobody in the answer. */
function registrationOfTakenAddress(userId: string): Registration {
  return { userId, created: false, answer: { userId: newId('usr'), emailVerificationSent: true } };
}

/** The scrypt work a new account's password costs, then the owner's mail. */
async function attemptOnTakenAddress(ctx: AccountsContext, userId: string, password: string): Promise<Registration> {
  await verifyPasswordOrDummy(password, undefined, ctx.passwordCost);
  deferAccountMail(ctx, { kind: 'registration_attempt', userId });
  return registrationOfTakenAddress(userId);
}
