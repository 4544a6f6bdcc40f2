import type { MailMessage } from './mail-transport.js';
import { appLink, type RenderMailOptions } from './mail-templates.js';

/** Mails that carry no token: they tell the owner of an address that something happened. */
export type NoticeMail =
  { kind: 'factor_locked'; to: string; lockedUntil: string } | { kind: 'registration_attempt'; to: string };

function forgotPasswordHint(options: RenderMailOptions): string {
  return options.appBaseUrl
    ? `If you forgot your password, ask for a new one at ${appLink('/forgot-password', options.appBaseUrl).toString()}.`
    : 'If you forgot your password, ask for a reset mail with POST /v1/auth/password/forgot.';
}

/** The subject and plain-text body of one notice. Deterministic: the same input gives the same text. */
export function renderNoticeMail(notice: NoticeMail, options: RenderMailOptions = {}): MailMessage {
  switch (notice.kind) {
    case 'factor_locked':
      return {
        to: notice.to,
        subject: 'Two-factor sign-in locked after wrong codes',
        text: [
          'Hello,',
          '',
          `Several wrong two-factor codes were sent for the nodectl account of ${notice.to} in a row, so its two-factor codes are refused until ${notice.lockedUntil}.`,
          '',
          'If it was not you, someone knows your password or holds one of your sessions: change your password, which ends every session.',
          '',
        ].join('\n'),
      };
    case 'registration_attempt':
      return {
        to: notice.to,
        subject: 'Someone tried to register with your address',
        text: [
          'Hello,',
          '',
          `Someone tried to create a nodectl account with ${notice.to}, which already has one. No new account was made.`,
          '',
          forgotPasswordHint(options),
          'If it was not you, you can ignore this mail: nothing changed on your account.',
          '',
        ].join('\n'),
      };
  }
}
