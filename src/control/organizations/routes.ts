import type { RoutePlugin } from '../../platform/app/index.js';
import { apiKeyRoutes } from './api-key-routes.js';
import { auditRoutes } from './audit-routes.js';
import { eraseRoutes } from './erase-routes.js';
import { invitationRoutes } from './invitation-routes.js';
import { createOrganizationMail } from './organization-mail.js';
import { memberRoutes } from './member-routes.js';
import { organizationRoutes } from './organization-routes.js';
import { transferRoutes } from './transfer-routes.js';

/**
 * Every organization route of the management scope (docs/organizations.md): organizations,
 * members, invitations, API keys, transfers, erase and the audit log. One mail sender serves invitations and
 * transfers; its transport is built on the first mail and closed with the app.
 */
export const organizationsRoutes: RoutePlugin = async (app, { services }) => {
  const mail = createOrganizationMail(services);
  app.addHook('onClose', async () => mail.close());
  await app.register(organizationRoutes, { services });
  await app.register(memberRoutes, { services, mail });
  await app.register(invitationRoutes, { services });
  await app.register(apiKeyRoutes, { services });
  await app.register(transferRoutes, { services, mail });
  await app.register(eraseRoutes, { services });
  await app.register(auditRoutes, { services });
};

export { billingRoutes } from './billing-routes.js';
