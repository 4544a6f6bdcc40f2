import { describe, expect, it } from 'vitest';
import { appLink, renderMail } from '../../../src/control/mail/mail-templates.js';
import { renderNoticeMail } from '../../../src/control/mail/notice-mails.js';

/** Mailed links land below appBaseUrl's path, so appBaseUrl=<public url>/console reaches the console. */
describe('mailed links under appBaseUrl', () => {
  const token = 't'.repeat(43);

  it('keep the path of appBaseUrl, with or without its trailing slash', () => {
    for (const base of ['http://127.0.0.1:8787/console', 'http://127.0.0.1:8787/console/']) {
      const mail = renderMail({ kind: 'email_verification', to: 'ada@example.com', token }, { appBaseUrl: base });
      expect(mail.text).toContain(`http://127.0.0.1:8787/console/verify-email?token=${token}`);
    }
    expect(appLink('/reset-password', 'https://example.test/a/b').toString()).toBe(
      'https://example.test/a/b/reset-password',
    );
    expect(appLink('/transfers/accept', 'https://example.test/console?x=1#top').toString()).toBe(
      'https://example.test/console/transfers/accept',
    );
  });

  it('stay at the root for an origin alone, as before', () => {
    const mail = renderMail(
      { kind: 'password_reset', to: 'ada@example.com', token },
      { appBaseUrl: 'https://app.example.test' },
    );
    expect(mail.text).toContain(`https://app.example.test/reset-password?token=${token}`);
  });

  it('hold for every mail kind and for the notice that points to forgot-password', () => {
    const appBaseUrl = 'http://host.test/console';
    const invitation = renderMail(
      {
        kind: 'invitation',
        to: 'b@example.com',
        token,
        organizationName: 'Org',
        role: 'viewer',
        fromEmail: 'a@x.test',
      },
      { appBaseUrl },
    );
    expect(invitation.text).toContain(`http://host.test/console/invitations/accept?token=${token}`);
    const transfer = renderMail(
      { kind: 'organization_transfer', to: 'b@example.com', token, organizationName: 'Org', fromEmail: 'a@x.test' },
      { appBaseUrl },
    );
    expect(transfer.text).toContain(`http://host.test/console/transfers/accept?token=${token}`);
    const notice = renderNoticeMail({ kind: 'registration_attempt', to: 'b@example.com' }, { appBaseUrl });
    expect(notice.text).toContain('http://host.test/console/forgot-password');
  });
});
