import type { FastifyRequest } from 'fastify';
import type { RoutePlugin } from '../app/route-plugin.js';
import { authorizedWebsite } from '../auth/management-scope.js';
import { auditRequest } from '../auth/request-audit.js';
import type { RouteAccess } from '../auth/route-access.js';
import { AppError, fieldProblemsFromZod } from '../errors/app-error.js';
import { sendData } from '../http/envelope.js';
import { pageOf, parseListQuery } from '../http/list-query.js';
import { assertCapability } from '../plans/entitlements.js';
import { readMasterKey } from '../storage/data-dir.js';
import type { z } from 'zod';
import { DeliveryFilterSchema, listAttemptsPage, listDeliveriesPage, readDelivery, resendDelivery } from './deliveries.js';
import { pingSubscription } from './ping.js';
import { assertDeliverableUrl, CreateSubscriptionSchema, EmptyBodySchema, UpdateSubscriptionSchema } from './schemas.js';
import { deliveryFetchOptions } from './send.js';
import {
  createSubscription, deleteSubscription, listSubscriptionsPage, presentSubscription, readSubscription, rotateSubscriptionSecret, updateSubscription,
} from './subscriptions.js';

/** docs/contract.md#routes: every webhook route is organization_admin on the website in the path. */
const READ: RouteAccess = { minRole: 'organization_admin', access: 'read', resource: { kind: 'website', param: 'id' } };
const MUTATE: RouteAccess = { minRole: 'organization_admin', access: 'mutate', resource: { kind: 'website', param: 'id' } };

const BASE = '/v1/websites/:id/webhooks';
type Params = { id: string; webhookId: string };
type DeliveryParams = Params & { deliveryId: string };

function parseBody<S extends z.ZodType>(schema: S, body: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(body ?? {});
  if (!parsed.success) throw new AppError('validation.failed', `The ${what} is not valid; see details.fields.`, { details: { fields: fieldProblemsFromZod(parsed.error.issues) } });
  return parsed.data;
}

/**
 * Webhook subscriptions of a website (docs/webhooks.md "Routes"): create (201, the `whsec_`
 * secret shown once), list, read, update, delete (204), rotate the secret (shown once again; the
 * old one still signs for 24 h), a test ping, and the deliveries with their attempts and a
 * re-send. Making, changing, rotating, pinging and re-sending need the plan's cap.webhooks
 * (403 entitlement.capability_missing); reading and deleting do not, so an organization that
 * left the plan can still see and remove what it had. Bodies are checked before the plan, so a
 * bad request is told what is wrong with it first.
 */
export const webhookRoutes: RoutePlugin = async (app, { services }) => {
  const db = services.controlDb;
  const masterKey = () => readMasterKey(services.layout);
  const requireCapability = (request: FastifyRequest) => assertCapability(db, authorizedWebsite(request).organizationId, 'cap.webhooks');

  app.post<{ Params: { id: string } }>(BASE, { config: { access: MUTATE } }, async (request, reply) => {
    const body = parseBody(CreateSubscriptionSchema, request.body, 'webhook subscription');
    assertDeliverableUrl(body.url, services.config.settings);
    const website = authorizedWebsite(request);
    requireCapability(request);
    const created = db.transaction(() => {
      const result = createSubscription(db, masterKey(), website.id, body, services.now());
      auditRequest(services, request, { organizationId: website.organizationId, action: 'webhook.created', target: result.subscription.id, details: { website_id: website.id, url: body.url, events: result.subscription.events.join(',') } });
      return result;
    }).immediate();
    return sendData(request, reply, { ...presentSubscription(created.subscription, services.now()), secret: created.secret }, 201);
  });

  app.get<{ Params: { id: string } }>(BASE, { config: { access: READ } }, async (request, reply) => {
    const query = parseListQuery(request.query);
    const website = authorizedWebsite(request);
    const now = services.now();
    return sendData(request, reply, pageOf(listSubscriptionsPage(db, website.id, query), query, (s) => s.id, (s) => presentSubscription(s, now)));
  });

  app.get<{ Params: Params }>(`${BASE}/:webhookId`, { config: { access: READ } }, async (request, reply) => {
    const website = authorizedWebsite(request);
    return sendData(request, reply, presentSubscription(readSubscription(db, website.id, request.params.webhookId), services.now()));
  });

  app.patch<{ Params: Params }>(`${BASE}/:webhookId`, { config: { access: MUTATE } }, async (request, reply) => {
    const changes = parseBody(UpdateSubscriptionSchema, request.body, 'webhook update');
    if (changes.url !== undefined) assertDeliverableUrl(changes.url, services.config.settings);
    const website = authorizedWebsite(request);
    readSubscription(db, website.id, request.params.webhookId);
    requireCapability(request);
    const updated = db.transaction(() => {
      const result = updateSubscription(db, website.id, request.params.webhookId, changes, services.now());
      auditRequest(services, request, { organizationId: website.organizationId, action: 'webhook.updated', target: result.id, details: { website_id: website.id, changed: Object.keys(changes).sort().join(',') } });
      return result;
    }).immediate();
    return sendData(request, reply, presentSubscription(updated, services.now()));
  });

  app.delete<{ Params: Params }>(`${BASE}/:webhookId`, { config: { access: MUTATE } }, async (request, reply) => {
    const website = authorizedWebsite(request);
    db.transaction(() => {
      readSubscription(db, website.id, request.params.webhookId);
      deleteSubscription(db, website.id, request.params.webhookId);
      auditRequest(services, request, { organizationId: website.organizationId, action: 'webhook.deleted', target: request.params.webhookId, details: { website_id: website.id } });
    }).immediate();
    return reply.code(204).send();
  });

  app.post<{ Params: Params }>(`${BASE}/:webhookId/rotate`, { config: { access: MUTATE } }, async (request, reply) => {
    parseBody(EmptyBodySchema, request.body, 'rotate request');
    const website = authorizedWebsite(request);
    readSubscription(db, website.id, request.params.webhookId);
    requireCapability(request);
    const rotated = db.transaction(() => {
      const result = rotateSubscriptionSecret(db, masterKey(), website.id, request.params.webhookId, services.now());
      auditRequest(services, request, { organizationId: website.organizationId, action: 'webhook.secret_rotated', target: result.subscription.id, details: { website_id: website.id, secret_version: result.subscription.secretVersion } });
      return result;
    }).immediate();
    return sendData(request, reply, { ...presentSubscription(rotated.subscription, services.now()), secret: rotated.secret });
  });

  app.post<{ Params: Params }>(`${BASE}/:webhookId/test`, { config: { access: MUTATE } }, async (request, reply) => {
    parseBody(EmptyBodySchema, request.body, 'test request');
    const website = authorizedWebsite(request);
    const subscription = readSubscription(db, website.id, request.params.webhookId);
    requireCapability(request);
    return sendData(request, reply, await pingSubscription(subscription, masterKey(), deliveryFetchOptions(services.config.settings), services.now()));
  });

  app.get<{ Params: Params }>(`${BASE}/:webhookId/deliveries`, { config: { access: READ } }, async (request, reply) => {
    const query = parseListQuery(request.query);
    const { state } = parseBody(DeliveryFilterSchema, { state: (request.query as { state?: unknown } | undefined)?.state }, 'delivery filter');
    const subscription = readSubscription(db, authorizedWebsite(request).id, request.params.webhookId);
    return sendData(request, reply, pageOf(listDeliveriesPage(db, subscription.id, query, state), query, (d) => d.id));
  });

  app.get<{ Params: DeliveryParams }>(`${BASE}/:webhookId/deliveries/:deliveryId`, { config: { access: READ } }, async (request, reply) => {
    const subscription = readSubscription(db, authorizedWebsite(request).id, request.params.webhookId);
    return sendData(request, reply, readDelivery(db, subscription.id, request.params.deliveryId));
  });

  app.get<{ Params: DeliveryParams }>(`${BASE}/:webhookId/deliveries/:deliveryId/attempts`, { config: { access: READ } }, async (request, reply) => {
    const query = parseListQuery(request.query);
    const subscription = readSubscription(db, authorizedWebsite(request).id, request.params.webhookId);
    const delivery = readDelivery(db, subscription.id, request.params.deliveryId);
    return sendData(request, reply, pageOf(listAttemptsPage(db, delivery.id, query), query, (a) => String(a.seq), ({ seq: _seq, ...attempt }) => attempt));
  });

  app.post<{ Params: DeliveryParams }>(`${BASE}/:webhookId/deliveries/:deliveryId/resend`, { config: { access: MUTATE } }, async (request, reply) => {
    parseBody(EmptyBodySchema, request.body, 'resend request');
    const website = authorizedWebsite(request);
    const subscription = readSubscription(db, website.id, request.params.webhookId);
    readDelivery(db, subscription.id, request.params.deliveryId);
    requireCapability(request);
    const { delivery, jobId } = db.transaction(() => resendDelivery(db, services.jobs, subscription, request.params.deliveryId)).immediate();
    return sendData(request, reply, { delivery, jobId }, 202);
  });
};
