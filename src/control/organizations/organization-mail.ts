import type { AppServices, RoutePluginOptions } from '../../platform/app/index.js';
import { MailOutbox, renderMail, type MailTemplate, createMailTransport } from '../mail/index.js';

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
