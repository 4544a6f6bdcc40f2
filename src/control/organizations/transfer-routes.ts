import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { RoutePlugin } from '../../platform/app/route-plugin.js';
import { actorOf } from '../access/request-audit.js';
import type { RouteAccess } from '../access/route-access.js';
import { sendData } from '../../platform/http/envelope.js';
import { dataEnvelope } from '../../platform/http/route-docs.js';
import { getOrganization } from '../records/organizations.js';
import { onOrganization } from './access.js';
import type { MailRouteOptions } from './organization-mail.js';
import { authorizedOrganization, callingUser } from './request-caller.js';
import {
  AcceptedTransferSchema,
  CancelledTransferSchema,
  NoBodySchema,
  OrganizationParamsSchema,
  StartedTransferSchema,
  StartTransferBodySchema,
  TransferTokenParamsSchema,
} from './schemas.js';
import { acceptTransfer, cancelTransfer, presentTransfer, startTransfer } from './transfers.js';

/** The recipient is whoever signs in with the address the token was mailed to: any user, never an API key. */
const ACCEPT_ACCESS: RouteAccess = { minRole: 'authenticated', access: 'mutate', apiKeys: false };
const TAGS = ['transfers'];

/**
 * POST /v1/organizations/:id/transfer {email} and .../transfer/cancel (organization_owner), POST
 * /v1/organizations/transfers/:token/accept (the recipient; 202 {job_id}: org.transfer.execute
 * moves the ownership). docs/organizations.md "Transfer".
 */
export const transferRoutes: RoutePlugin<MailRouteOptions> = async (plainApp, { services, mail }) => {
  const app = plainApp.withTypeProvider<ZodTypeProvider>();

  app.post(
    '/v1/organizations/:id/transfer',
    {
      // 422 validation.failed also for the caller's own address.
      config: {
        access: onOrganization('organization_owner', 'mutate', 'users'),
        errors: ['organization.transfer_pending', 'privacy.erasure_in_progress', 'validation.failed'],
      },
      schema: {
        summary:
          'Start a transfer of the organization to a new owner: the recipient is mailed a token that works for 7 days',
        tags: TAGS,
        params: OrganizationParamsSchema,
        body: StartTransferBodySchema,
        response: { 201: dataEnvelope(StartedTransferSchema) },
      },
    },
    async (request, reply) => {
      const { email } = request.body;
      const tenant = authorizedOrganization(request);
      const organization = getOrganization(services.controlDb, tenant.organizationId)!;
      const { transfer, mailSent } = await startTransfer(services, mail, {
        organization,
        email,
        callerId: callingUser(request).userId,
        requestId: request.id,
      });
      return sendData(request, reply, { transfer: presentTransfer(transfer), mailSent }, 201);
    },
  );

  app.post(
    '/v1/organizations/:id/transfer/cancel',
    {
      config: {
        access: onOrganization('organization_owner', 'mutate', 'users'),
        errors: ['organization.transfer_not_found'],
      },
      schema: {
        summary: 'Cancel the pending transfer of the organization; its mailed token stops working',
        tags: TAGS,
        params: OrganizationParamsSchema,
        body: NoBodySchema,
        response: { 200: dataEnvelope(CancelledTransferSchema) },
      },
    },
    async (request, reply) => {
      const tenant = authorizedOrganization(request);
      const transfer = cancelTransfer(services, {
        organizationId: tenant.organizationId,
        actor: actorOf(request.principal),
        requestId: request.id,
      });
      return sendData(request, reply, { transfer: presentTransfer(transfer) });
    },
  );

  app.post(
    '/v1/organizations/transfers/:token/accept',
    {
      // 403 auth.forbidden when the signed-in account is not the address the transfer was sent to.
      config: {
        access: ACCEPT_ACCESS,
        errors: ['auth.mail_token_invalid', 'auth.mail_token_expired', 'auth.mail_token_used', 'auth.forbidden'],
      },
      schema: {
        summary:
          'Accept a transfer with the mailed token, signed in as its recipient; a job makes the recipient organization_owner',
        tags: TAGS,
        params: TransferTokenParamsSchema,
        body: NoBodySchema,
        response: { 202: dataEnvelope(AcceptedTransferSchema) },
      },
    },
    async (request, reply) => {
      const { transfer, job } = acceptTransfer(services, {
        token: request.params.token,
        userId: callingUser(request).userId,
        requestId: request.id,
      });
      return sendData(request, reply, { job_id: job.id, transfer: presentTransfer(transfer) }, 202);
    },
  );
};
