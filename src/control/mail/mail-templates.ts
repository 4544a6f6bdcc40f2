import type { MailMessage } from './mail-transport.js';

/** What each mail needs; `token` is the single-use token the recipient brings back. */
export type MailTemplate =
  | { kind: 'email_verification'; to: string; token: string }
  | { kind: 'password_reset'; to: string; token: string }
  | { kind: 'organization_transfer'; to: string; token: string; organizationName: string; fromEmail: string }
  | { kind: 'invitation'; to: string; token: string; organizationName: string; role: string; fromEmail: string };

export interface RenderMailOptions {
  /** Web app address (setting appBaseUrl); links are `<appBaseUrl>/<path>?token=...`, below its path. */
  appBaseUrl?: string | undefined;
}

/**
 * The address of `path` below appBaseUrl, path included: `http://host/console` gives
 * `http://host/console/verify-email`, where `new URL('/verify-email', base)` would drop `/console`.
 */
export function appLink(path: string, appBaseUrl: string): URL {
  const base = new URL(appBaseUrl);
  if (!base.pathname.endsWith('/')) base.pathname += '/';
  base.search = '';
  base.hash = '';
  return new URL(path.replace(/^\/+/, ''), base);
}

/** Where the web app takes each token, and the API route that consumes it when there is no web app. */
const ACTIONS: Record<MailTemplate['kind'], { path: string; route: string; lifetime: string }> = {
  email_verification: { path: '/verify-email', route: 'POST /v1/auth/verify-email', lifetime: '24 hours' },
  password_reset: { path: '/reset-password', route: 'POST /v1/auth/password/reset', lifetime: '1 hour' },
  organization_transfer: {
    path: '/transfers/accept',
    route: 'POST /v1/organizations/transfers/<token>/accept',
    lifetime: '7 days',
  },
  invitation: { path: '/invitations/accept', route: 'the invitation link of your nodectl service', lifetime: '7 days' },
};

/** Control characters (a newline in an organization name) never reach a mail. */
function clean(text: string): string {
  return text.replace(/[\p{Cc}\p{Cf}]+/gu, ' ').trim();
}

function actionLines(template: MailTemplate, options: RenderMailOptions): string[] {
  const action = ACTIONS[template.kind];
  const expiry = `It works once and expires in ${action.lifetime}.`;
  if (options.appBaseUrl) {
    const url = appLink(action.path, options.appBaseUrl);
    url.searchParams.set('token', template.token);
    return [url.toString(), '', expiry];
  }
  return [`Your token: ${template.token}`, '', `Use it with ${action.route}. ${expiry}`];
}

/** The subject and plain-text body of one mail. Deterministic: the same input gives the same text. */
export function renderMail(template: MailTemplate, options: RenderMailOptions = {}): MailMessage {
  const action = actionLines(template, options);
  const ignore = 'If you did not expect this mail, you can ignore it.';
  switch (template.kind) {
    case 'email_verification':
      return {
        to: template.to,
        subject: 'Confirm your email address',
        text: [
          'Hello,',
          '',
          `Confirm that ${template.to} is your email address for nodectl:`,
          '',
          ...action,
          '',
          ignore,
          '',
        ].join('\n'),
      };
    case 'password_reset':
      return {
        to: template.to,
        subject: 'Reset your password',
        text: [
          'Hello,',
          '',
          'Someone asked to reset the nodectl password of this email address. To choose a new password:',
          '',
          ...action,
          '',
          'If it was not you, ignore this mail: your password stays as it is.',
          '',
        ].join('\n'),
      };
    case 'organization_transfer': {
      const org = clean(template.organizationName);
      return {
        to: template.to,
        subject: `Take over the organization ${org}`,
        text: [
          'Hello,',
          '',
          `${clean(template.fromEmail)} wants to transfer the organization "${org}" to you; you would become its owner. To accept:`,
          '',
          ...action,
          '',
          ignore,
          '',
        ].join('\n'),
      };
    }
    case 'invitation': {
      const org = clean(template.organizationName);
      return {
        to: template.to,
        subject: `Join ${org} on nodectl`,
        text: [
          'Hello,',
          '',
          `${clean(template.fromEmail)} invites you to the organization "${org}" as ${clean(template.role)}. To accept:`,
          '',
          ...action,
          '',
          ignore,
          '',
        ].join('\n'),
      };
    }
  }
}
