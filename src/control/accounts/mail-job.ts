import { defineJob } from '../../platform/job-runtime/index.js';
import { ACCOUNT_MAIL_JOB_KIND } from './account-mail-kinds.js';
import { composeAccountMail } from './account-mail.js';
import { accountsContextOf } from './http-context.js';

/**
 * Sends one account mail the routes deferred (password reset, email verification, a registration
 * with a taken address): the lookup, the token and the send happen here, not in the request. A
 * transport failure fails the attempt, so the mail is retried with backoff.
 */
export const accountMailJob = defineJob({
  ...ACCOUNT_MAIL_JOB_KIND,
  lane: 'delivery',
  handler: async (payload, { services }) => {
    const ctx = await accountsContextOf(services);
    const message = composeAccountMail(ctx, payload);
    if (message && !(await ctx.mail.deliver(payload.kind, message)))
      throw new Error(`the ${payload.kind} mail was not sent (the transport failed; see the log)`);
  },
});
