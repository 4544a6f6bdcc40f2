/**
 * Pure helpers of the account pages (sign up, mailed links, the account page): no DOM, so
 * test/console covers them without a browser.
 */

/** A TOTP secret in groups of four, as an authenticator app's "enter a key" field is typed. */
export function groupSecret(secret: string): string {
  return (secret.replace(/\s+/g, '').match(/.{1,4}/g) ?? []).join(' ');
}

/**
 * What one "code" field holds, as the API takes it: six digits are the authenticator's code,
 * anything else a recovery code (those are letters and digits with a dash, never six digits).
 */
export function secondFactorOf(code: string): { totp: string } | { recoveryCode: string } {
  const typed = code.trim();
  return /^\d{6}$/.test(typed) ? { totp: typed } : { recoveryCode: typed };
}

/** The kinds of mailed link the console opens, with how long each works (src/control/mail/mail-templates.ts). */
export type MailedLink = 'verification' | 'reset' | 'transfer';

const NEW_LINK: Record<MailedLink, string> = {
  verification:
    'To get a new one, ask for a password reset: its mail confirms the address too (the API has no "send the confirmation again").',
  reset: 'Ask for a new reset mail.',
  transfer: 'Ask the owner of the organization to start the transfer again.',
};

/** What to tell the user when the API refuses a mailed token, by its error code; undefined for any other failure. */
export function mailLinkProblem(code: string, link: MailedLink): string | undefined {
  switch (code) {
    case 'auth.mail_token_expired':
      return `This link has expired. ${NEW_LINK[link]}`;
    case 'auth.mail_token_used':
      return link === 'verification'
        ? 'This link was used already: the address is confirmed. Sign in; your account page shows it.'
        : `This link was used already; each works once. ${NEW_LINK[link]}`;
    case 'auth.mail_token_invalid':
      return `This link is not valid: check that the whole address from the mail was opened (mail programs sometimes cut long links). ${NEW_LINK[link]}`;
    default:
      return undefined;
  }
}

/** Why a new password typed twice cannot be sent yet, or undefined when it can (the API checks its length too). */
export function newPasswordProblem(password: string, again: string): string | undefined {
  if (password !== again) return 'The two passwords differ: type the same new password in both fields.';
  return undefined;
}

/**
 * A message for the sign-in page, set by a page that ends the session on purpose (a password
 * change or reset) and read once, so the sign-in form says why it is there.
 */
let pendingNotice: string | undefined;
export function leaveNotice(text: string): void {
  pendingNotice = text;
}
export function takeNotice(): string | undefined {
  const text = pendingNotice;
  pendingNotice = undefined;
  return text;
}

/** An SVG path of a QR code's dark modules (`rows[row][col]` true for dark), one unit square each. */
export function qrPath(rows: readonly (readonly boolean[])[]): string {
  const squares: string[] = [];
  rows.forEach((row, y) => row.forEach((dark, x) => dark && squares.push(`M${x} ${y}h1v1h-1z`)));
  return squares.join('');
}
