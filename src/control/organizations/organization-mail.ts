import type { AppServices } from '../../platform/app/services.js';
import type { RoutePluginOptions } from '../../platform/app/route-plugin.js';
import { MailOutbox } from '../mail/mail-outbox.js';
import { renderMail, type MailTemplate } from '../mail/mail-templates.js';
import { createMailTransport } from '../mail/mail-transport.js';

/** Invitation and transfer mail, through the same outbox, transport and templates as account mail (docs/auth.md). */
export interface OrganizationMail {
  /** Renders and sends; resolves false (logged, never thrown) when the transport failed. */
  send(template: MailTemplate): Promise<boolean>;
  close(): void;
}

/** The transport is built on the first mail, so a daemon that never invites anyone opens no SMTP connection. */
export function createOrganizationMail(services: Pick<AppServices, 'config' | 'layout' | 'logger'>): OrganizationMail {
  const { settings } = services.config;
  let outbox: Promise<MailOutbox> | undefined;
  const outboxOf = () =>
    (outbox ??= createMailTransport(settings, services.layout).then(
      (transport) => new MailOutbox(transport, { from: settings.mailFrom, logger: services.logger }),
    ));
  return {
    async send(template) {
      return (await outboxOf()).deliver(template.kind, renderMail(template, { appBaseUrl: settings.appBaseUrl }));
    },
    close() {
      void outbox?.then((o) => o.close());
    },
  };
}

/** Options of the route groups that send mail: the daemon's services and the feature's one mail sender. */
export interface MailRouteOptions extends RoutePluginOptions {
  mail: OrganizationMail;
}
