import type { DataDirLayout } from '../../platform/storage/data-dir.js';
import type { Settings } from '../../platform/config/settings.js';
import type { MailTransport } from './mail-message.js';

export type { MailMessage, MailTransport, OutgoingMail } from './mail-message.js';

/** The transport the settings name (mailTransport), loading only that backend. */
export async function createMailTransport(settings: Settings, layout: DataDirLayout): Promise<MailTransport> {
  if (settings.mailTransport === 'smtp') {
    const { createSmtpMailTransport } = await import('./mail-smtp-transport.js');
    return createSmtpMailTransport({
      host: settings.smtpHost,
      port: settings.smtpPort,
      secure: settings.smtpSecure,
      user: settings.smtpUser,
      pass: settings.smtpPass,
    });
  }
  const { createFileMailTransport } = await import('./mail-file-transport.js');
  return createFileMailTransport({ dir: layout.mailDir });
}
