import nodemailer from 'nodemailer';
import { z } from 'zod';
import type { MailTransport, OutgoingMail } from './mail-message.js';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1']);

/** The SMTP settings, checked together: each alone is valid, but smtp needs a host and both credentials or none. */
export const SmtpOptionsSchema = z
  .strictObject({
    host: z.string({ error: 'set smtpHost (NODECTL_SMTP_HOST) to use mailTransport smtp' }).min(1),
    port: z.number().int().min(1).max(65535),
    secure: z.boolean(),
    user: z.string().min(1).optional(),
    pass: z.string().min(1).optional(),
  })
  .refine((o) => (o.user === undefined) === (o.pass === undefined), {
    message: 'set both smtpUser and smtpPass, or neither',
    path: ['user'],
  });

/** The settings as given: any may be missing; the schema says which must not be. */
export type SmtpOptions = {
  [K in keyof z.input<typeof SmtpOptionsSchema>]?: z.input<typeof SmtpOptionsSchema>[K] | undefined;
};

/**
 * Sends through an SMTP server (nodemailer). With smtpSecure the connection is TLS from the first
 * byte (port 465); otherwise STARTTLS is used when the server offers it, and required when
 * credentials are set and the server is not on loopback, so a password never crosses a network in
 * the clear.
 */
export function createSmtpMailTransport(input: SmtpOptions): MailTransport {
  const parsed = SmtpOptionsSchema.safeParse(input);
  if (!parsed.success)
    throw new Error(`The SMTP settings are not valid: ${parsed.error.issues.map((i) => i.message).join('; ')}.`);
  const { host, port, secure, user, pass } = parsed.data;
  const transporter = nodemailer.createTransport({
    host,
    port,
    secure,
    requireTLS: !secure && user !== undefined && !LOOPBACK.has(host),
    auth: user !== undefined && pass !== undefined ? { user, pass } : undefined,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  });
  return {
    kind: 'smtp',
    async send(mail: OutgoingMail) {
      const info = await transporter.sendMail({ from: mail.from, to: mail.to, subject: mail.subject, text: mail.text });
      return { messageId: info.messageId };
    },
    close() {
      transporter.close();
    },
  };
}
