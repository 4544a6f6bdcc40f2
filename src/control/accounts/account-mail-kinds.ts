import { z } from 'zod';

/**
 * The account mails sent out of the request (docs/auth.md "Mail"): the request only records which
 * one, and the accounts.mail job (./mail-job.ts) looks the account up, issues the token and sends.
 * So a request does the same work whether or not the address has an account.
 */
export const AccountMailSchema = z.discriminatedUnion('kind', [
  /** Forgot-password: the address as typed; whether it has an account is only looked at in the job. */
  z.object({ kind: z.literal('password_reset'), email: z.string().min(1).max(320) }),
  z.object({ kind: z.literal('email_verification'), userId: z.string().min(1) }),
  /** Register with an address that has an account: its owner is told instead. */
  z.object({ kind: z.literal('registration_attempt'), userId: z.string().min(1) }),
]);
export type AccountMail = z.infer<typeof AccountMailSchema>;

/** The job kind that sends them; stored in the jobs table, so never renamed. */
export const ACCOUNT_MAIL_JOB_KIND = { kind: 'accounts.mail', payload: AccountMailSchema } as const;
