/** One plain-text mail as the accounts code writes it; the outbox adds From. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface OutgoingMail extends MailMessage {
  from: string;
}

/**
 * Where mail leaves the service: one small interface, one file per backend (mail-file-transport.ts,
 * mail-smtp-transport.ts). A transport throws when it could not hand the message on.
 */
export interface MailTransport {
  readonly kind: 'file' | 'smtp';
  /** Hands the message on; resolves with its Message-ID once the file is written or the server accepted it. */
  send(mail: OutgoingMail): Promise<{ messageId: string }>;
  close(): void;
}
