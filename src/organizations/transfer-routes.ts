import { z } from 'zod';
import type { RoutePlugin } from '../app/route-plugin.js';
import { actorOf } from '../auth/request-audit.js';
import type { RouteAccess } from '../auth/route-access.js';
import { sendData } from '../http/envelope.js';
import { getOrganization } from '../tenancy/organizations.js';
import { EmailSchema } from '../tenancy/records.js';
import { onOrganization } from './access.js';
import type { MailRouteOptions } from './mail.js';
import { parseInput } from './parse-input.js';
import { authorizedOrganization, callingUser } from './request-caller.js';
import { acceptTransfer, cancelTransfer, presentTransfer, startTransfer } from './transfers.js';

const TransferBodySchema = z.strictObject({ email: EmailSchema });
const NoBodySchema = z.strictObject({}).optional();

/** The recipient is whoever signs in with the address the token was mailed to: any user, never an API key. */
const ACCEPT_ACCESS: RouteAccess = { minRole: 'authenticated', access: 'mutate', apiKeys: false };

/**
 * POST /v1/organizations/:id/transfer {email} and .../transfer/cancel (organization_owner), POST
 * /v1/organizations/transfers/:token/accept (the recipient; 202 {job_id}: org.transfer.execute
 * moves the ownership). docs/organizations.md "Transfer".
 */
export const transferRoutes: RoutePlugin<MailRouteOptions> = async (app, { services, mail }) => {
  app.post<{ Params: { id: string } }>('/v1/organizations/:id/transfer', { config: { access: onOrganization('organization_owner', 'mutate', 'users') } }, async (request, reply) => {
    const { email } = parseInput(TransferBodySchema, request.body, 'transfer');
    const tenant = authorizedOrganization(request);
    const organization = getOrganization(services.controlDb, tenant.organizationId)!;
    const { transfer, mailSent } = await startTransfer(services, mail, { organization, email, callerId: callingUser(request).userId, requestId: request.id });
    return sendData(request, reply, { transfer: presentTransfer(transfer), mailSent }, 201);
  });

  app.post<{ Params: { id: string } }>('/v1/organizations/:id/transfer/cancel', { config: { access: onOrganization('organization_owner', 'mutate', 'users') } }, async (request, reply) => {
    parseInput(NoBodySchema, request.body ?? undefined, 'transfer cancellation');
    const tenant = authorizedOrganization(request);
    const transfer = cancelTransfer(services, { organizationId: tenant.organizationId, actor: actorOf(request.principal), requestId: request.id });
    return sendData(request, reply, { transfer: presentTransfer(transfer) });
  });

  app.post<{ Params: { token: string } }>('/v1/organizations/transfers/:token/accept', { config: { access: ACCEPT_ACCESS } }, async (request, reply) => {
    parseInput(NoBodySchema, request.body ?? undefined, 'transfer acceptance');
    const { transfer, job } = acceptTransfer(services, { token: request.params.token, userId: callingUser(request).userId, requestId: request.id });
    return sendData(request, reply, { job_id: job.id, transfer: presentTransfer(transfer) }, 202);
  });
};
