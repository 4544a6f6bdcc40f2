import { renderMail, renderNoticeMail, type MailMessage } from '../mail/index.js';
import { findAuthUserByEmail, readAuthUser } from './account-users.js';
import type { AccountMail } from './account-mail-kinds.js';
import type { AccountsContext } from './context.js';
import { issueMailToken } from './mail-tokens.js';

/**
 * The message of one account mail, issuing its token now; undefined when there is nothing to send
 * (no account for a reset, an account gone or already verified).
 */
export function composeAccountMail(ctx: AccountsContext, mail: AccountMail): MailMessage | undefined {
  const links = { appBaseUrl: ctx.appBaseUrl };
  switch (mail.kind) {
    case 'password_reset': {
      const user = findAuthUserByEmail(ctx.db, mail.email);
      if (!user) return undefined;
      const token = issueMailToken(ctx.db, 'password_reset', { userId: user.id, email: user.email }, ctx.now());
      return renderMail({ kind: 'password_reset', to: user.email, token }, links);
    }
    case 'email_verification': {
      const user = readAuthUser(ctx.db, mail.userId);
      if (!user || user.emailVerifiedAt !== null) return undefined;
      const token = issueMailToken(ctx.db, 'email_verification', { userId: user.id, email: user.email }, ctx.now());
      return renderMail({ kind: 'email_verification', to: user.email, token }, links);
    }
    case 'registration_attempt': {
      const user = readAuthUser(ctx.db, mail.userId);
      return user ? renderNoticeMail({ kind: 'registration_attempt', to: user.email }, links) : undefined;
    }
  }
}

/**
 * Sends an account mail after the request: through the context's deferMail (the daemon enqueues
 * the accounts.mail job), else through the in-memory outbox once the caller has answered.
 */
export function deferAccountMail(ctx: AccountsContext, mail: AccountMail): void {
  if (ctx.deferMail) return ctx.deferMail(mail);
  ctx.mail.enqueue(mail.kind, () => composeAccountMail(ctx, mail));
}
