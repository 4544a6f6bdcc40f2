import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { AppServices } from '../../platform/app/index.js';
import { ACCOUNT_MAIL_JOB_KIND } from './account-mail-kinds.js';
import { createAccountsContext, type AccountsContext } from './context.js';

/**
 * The daemon's one AccountsContext per AppServices: the JWKS route, the /v1/auth routes and the
 * user-principal resolver all read the same key ring, clock and mail outbox. Made on first use
 * (the route plugins ask while the app is built, so the signing key and the dummy password hash
 * exist before the first request) and closed with the app (closeAccountsContext).
 */
type ContextServices = Pick<
  AppServices,
  'config' | 'controlDb' | 'jobs' | 'layout' | 'logger' | 'now' | 'passwordCost'
>;

const contexts = new WeakMap<ContextServices, Promise<AccountsContext>>();

export function accountsContextOf(services: ContextServices, server?: Server): Promise<AccountsContext> {
  let context = contexts.get(services);
  if (!context) {
    context = createAccountsContext({
      db: services.controlDb,
      layout: services.layout,
      settings: services.config.settings,
      // The default issuer names the port the app listens on, known only once it listens (port 0).
      listenPort: () => (server?.address() as AddressInfo | null | undefined)?.port,
      now: services.now,
      passwordCost: services.passwordCost,
      logger: services.logger,
      // Account mails leave through the durable queue, out of the request (./mail-job.ts).
      deferMail: (mail) => void services.jobs.enqueue(ACCOUNT_MAIL_JOB_KIND, mail),
    });
    contexts.set(services, context);
  }
  return context;
}

/** Lets queued mail go out, then closes the mail transport; the database belongs to the services. */
export async function closeAccountsContext(services: ContextServices): Promise<void> {
  const context = contexts.get(services);
  if (!context) return;
  contexts.delete(services);
  const ctx = await context;
  await ctx.mail.idle();
  ctx.close();
}
