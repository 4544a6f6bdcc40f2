/** The public face of src/control/mail: what the rest of src/ may import from it. */
export { MailOutbox } from './mail-outbox.js';
export type { AccountsLogger } from './mail-outbox.js';
export { renderMail } from './mail-templates.js';
export type { MailTemplate } from './mail-templates.js';
export { createMailTransport } from './mail-transport.js';
export type { MailMessage, MailTransport } from './mail-transport.js';
export { renderNoticeMail } from './notice-mails.js';
export type { NoticeMail } from './notice-mails.js';
