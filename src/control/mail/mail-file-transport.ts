import { join } from 'node:path';
import MailComposer from 'nodemailer/lib/mail-composer';
import { newUlid } from '../../platform/ids/ulid.js';
import type { MailTransport, OutgoingMail } from './mail-message.js';
import { writeFileAtomic } from '../../platform/storage/write-file-atomic.js';

export interface FileMailTransportOptions {
  /** Folder the .eml files go to: `<data-dir>/mail` by default. */
  dir: string;
}

/** The domain of the From address, for Message-ID (RFC 5322 section 3.6.4). */
function domainOf(from: string): string {
  return /@([^\s>]+)>?\s*$/.exec(from)?.[1] ?? 'localhost';
}

/**
 * The default transport: each message becomes `<dir>/<ulid>.eml`, an RFC 5322 message (CRLF lines,
 * Date, Message-ID, MIME headers, non-ASCII headers encoded) that any mail client opens. File names
 * sort in sending order; each file is written atomically, so a reader never sees half a message.
 */
export function createFileMailTransport(options: FileMailTransportOptions): MailTransport {
  return {
    kind: 'file',
    async send(mail: OutgoingMail) {
      const id = newUlid();
      const messageId = `<${id}@${domainOf(mail.from)}>`;
      const raw = await new MailComposer({
        from: mail.from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        messageId,
        date: new Date(),
      })
        .compile()
        .build();
      // The composer keeps the body's own line ends; RFC 5322 wants CRLF everywhere (SMTP converts on the wire).
      writeFileAtomic(join(options.dir, `${id}.eml`), raw.toString('utf8').replace(/\r?\n/g, '\r\n'), { mode: 0o600 });
      return { messageId };
    },
    close() {},
  };
}
