import type { FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { RoutePlugin } from '../../platform/app/route-plugin.js';
import { authorizedWebsite } from '../access/management-scope.js';
import { auditRequest } from '../access/request-audit.js';
import type { RouteAccess } from '../access/route-access.js';
import { sendData } from '../../platform/http/envelope.js';
import { ListQuerySchema, pageOf, parseListQuery } from '../../platform/http/list-query.js';
import { dataEnvelope, listEnvelope, NoContent } from '../../platform/http/route-docs.js';
import { assertCapability } from '../plans/entitlements.js';
import { readMasterKey } from '../../platform/storage/data-dir.js';
import { WebsiteIdParamsSchema } from '../websites/schemas.js';
import { listAttemptsPage, listDeliveriesPage, readDelivery, resendDelivery } from './deliveries.js';
import { pingSubscription } from './ping.js';
import {
  assertDeliverableUrl,
  AttemptSchema,
  CreateSubscriptionSchema,
  DeliveryListQuerySchema,
  DeliveryParamsSchema,
  DeliverySchema,
  EmptyBodySchema,
  PingResultSchema,
  ResendResultSchema,
  SubscriptionSchema,
  SubscriptionWithSecretSchema,
  UpdateSubscriptionSchema,
  WebhookParamsSchema,
} from './schemas.js';
import { deliveryFetchOptions } from './send.js';
import {
  createSubscription,
  deleteSubscription,
  listSubscriptionsPage,
  presentSubscription,
  readSubscription,
  rotateSubscriptionSecret,
  updateSubscription,
} from './subscriptions.js';

/** docs/contract.md#routes: every webhook route is organization_admin on the website in the path. */
const READ: RouteAccess = { minRole: 'organization_admin', access: 'read', resource: { kind: 'website', param: 'id' } };
const MUTATE: RouteAccess = {
  minRole: 'organization_admin',
  access: 'mutate',
  resource: { kind: 'website', param: 'id' },
};

const BASE = '/v1/websites/:id/webhooks';
const TAGS = ['webhooks'];

/**
 * Webhook subscriptions of a website (docs/webhooks.md "Routes"): create (201, the `whsec_`
 * secret shown once), list, read, update, delete (204), rotate the secret (shown once again; the
 * old one still signs for 24 h), a test ping, and the deliveries with their attempts and a
 * re-send. Making, changing, rotating, pinging and re-sending need the plan's cap.webhooks
 * (403 entitlement.capability_missing); reading and deleting do not, so an organization that
 * left the plan can still see and remove what it had. Bodies are checked (by the schemas of
 * ./schemas.ts) before the plan, so a bad request is told what is wrong with it first.
 */
export const webhookRoutes: RoutePlugin = async (plainApp, { services }) => {
  const app = plainApp.withTypeProvider<ZodTypeProvider>();
  const db = services.controlDb;
  const masterKey = () => readMasterKey(services.layout);
  const requireCapability = (request: FastifyRequest) =>
    assertCapability(db, authorizedWebsite(request).organizationId, 'cap.webhooks');

  app.post(
    BASE,
    {
      config: { access: MUTATE, errors: ['entitlement.capability_missing'] },
      schema: {
        summary: "Subscribe a URL to the website's events; the signing secret is shown this once",
        tags: TAGS,
        params: WebsiteIdParamsSchema,
        body: CreateSubscriptionSchema,
        response: {
          201: dataEnvelope(SubscriptionWithSecretSchema).describe('The subscription and its secret, shown this once'),
        },
      },
    },
    async (request, reply) => {
      const body = request.body;
      assertDeliverableUrl(body.url, services.config.settings);
      const website = authorizedWebsite(request);
      requireCapability(request);
      const created = db
        .transaction(() => {
          const result = createSubscription(db, masterKey(), website.id, body, services.now());
          auditRequest(services, request, {
            organizationId: website.organizationId,
            action: 'webhook.created',
            target: result.subscription.id,
            details: { website_id: website.id, url: body.url, events: result.subscription.events.join(',') },
          });
          return result;
        })
        .immediate();
      return sendData(
        request,
        reply,
        { ...presentSubscription(created.subscription, services.now()), secret: created.secret },
        201,
      );
    },
  );

  app.get(
    BASE,
    {
      config: { access: READ },
      schema: {
        summary: "List the website's webhook subscriptions, oldest first",
        tags: TAGS,
        params: WebsiteIdParamsSchema,
        querystring: ListQuerySchema,
        response: { 200: listEnvelope(SubscriptionSchema).describe('One page of subscriptions') },
      },
    },
    async (request, reply) => {
      const query = parseListQuery(request.query);
      const website = authorizedWebsite(request);
      const now = services.now();
      return sendData(
        request,
        reply,
        pageOf(
          listSubscriptionsPage(db, website.id, query),
          query,
          (s) => s.id,
          (s) => presentSubscription(s, now),
        ),
      );
    },
  );

  app.get(
    `${BASE}/:webhookId`,
    {
      config: { access: READ, errors: ['webhook.not_found'] },
      schema: {
        summary: 'Read a webhook subscription',
        tags: TAGS,
        params: WebhookParamsSchema,
        response: { 200: dataEnvelope(SubscriptionSchema).describe('The subscription') },
      },
    },
    async (request, reply) => {
      const website = authorizedWebsite(request);
      return sendData(
        request,
        reply,
        presentSubscription(readSubscription(db, website.id, request.params.webhookId), services.now()),
      );
    },
  );

  app.patch(
    `${BASE}/:webhookId`,
    {
      config: { access: MUTATE, errors: ['webhook.not_found', 'entitlement.capability_missing'] },
      schema: {
        summary: "Change a subscription's URL, events or description, or disable or enable it",
        tags: TAGS,
        params: WebhookParamsSchema,
        body: UpdateSubscriptionSchema,
        response: { 200: dataEnvelope(SubscriptionSchema).describe('The subscription') },
      },
    },
    async (request, reply) => {
      const changes = request.body;
      if (changes.url !== undefined) assertDeliverableUrl(changes.url, services.config.settings);
      const website = authorizedWebsite(request);
      readSubscription(db, website.id, request.params.webhookId);
      requireCapability(request);
      const updated = db
        .transaction(() => {
          const result = updateSubscription(db, website.id, request.params.webhookId, changes, services.now());
          auditRequest(services, request, {
            organizationId: website.organizationId,
            action: 'webhook.updated',
            target: result.id,
            details: { website_id: website.id, changed: Object.keys(changes).sort().join(',') },
          });
          return result;
        })
        .immediate();
      return sendData(request, reply, presentSubscription(updated, services.now()));
    },
  );

  app.delete(
    `${BASE}/:webhookId`,
    {
      config: { access: MUTATE, errors: ['webhook.not_found'] },
      schema: {
        summary: 'Delete a subscription with its deliveries and their attempts',
        tags: TAGS,
        params: WebhookParamsSchema,
        response: { 204: NoContent },
      },
    },
    async (request, reply) => {
      const website = authorizedWebsite(request);
      db.transaction(() => {
        readSubscription(db, website.id, request.params.webhookId);
        deleteSubscription(db, website.id, request.params.webhookId);
        auditRequest(services, request, {
          organizationId: website.organizationId,
          action: 'webhook.deleted',
          target: request.params.webhookId,
          details: { website_id: website.id },
        });
      }).immediate();
      return reply.code(204).send();
    },
  );

  app.post(
    `${BASE}/:webhookId/rotate`,
    {
      config: { access: MUTATE, errors: ['webhook.not_found', 'entitlement.capability_missing'] },
      schema: {
        summary: 'Issue a new signing secret; the previous one also signs for 24 hours',
        tags: TAGS,
        params: WebhookParamsSchema,
        body: EmptyBodySchema,
        response: {
          200: dataEnvelope(SubscriptionWithSecretSchema).describe(
            'The subscription and its new secret, shown this once',
          ),
        },
      },
    },
    async (request, reply) => {
      const website = authorizedWebsite(request);
      readSubscription(db, website.id, request.params.webhookId);
      requireCapability(request);
      const rotated = db
        .transaction(() => {
          const result = rotateSubscriptionSecret(
            db,
            masterKey(),
            website.id,
            request.params.webhookId,
            services.now(),
          );
          auditRequest(services, request, {
            organizationId: website.organizationId,
            action: 'webhook.secret_rotated',
            target: result.subscription.id,
            details: { website_id: website.id, secret_version: result.subscription.secretVersion },
          });
          return result;
        })
        .immediate();
      return sendData(request, reply, {
        ...presentSubscription(rotated.subscription, services.now()),
        secret: rotated.secret,
      });
    },
  );

  app.post(
    `${BASE}/:webhookId/test`,
    {
      config: { access: MUTATE, errors: ['webhook.not_found', 'entitlement.capability_missing'] },
      schema: {
        summary: 'Send one signed webhook.test request now and answer what came back',
        tags: TAGS,
        params: WebhookParamsSchema,
        body: EmptyBodySchema,
        response: {
          200: dataEnvelope(PingResultSchema).describe('What the receiver answered; nothing is stored or retried'),
        },
      },
    },
    async (request, reply) => {
      const website = authorizedWebsite(request);
      const subscription = readSubscription(db, website.id, request.params.webhookId);
      requireCapability(request);
      return sendData(
        request,
        reply,
        await pingSubscription(
          subscription,
          masterKey(),
          deliveryFetchOptions(services.config.settings),
          services.now(),
        ),
      );
    },
  );

  app.get(
    `${BASE}/:webhookId/deliveries`,
    {
      config: { access: READ, errors: ['webhook.not_found'] },
      schema: {
        summary: "List a subscription's deliveries, newest first",
        tags: TAGS,
        params: WebhookParamsSchema,
        querystring: DeliveryListQuerySchema,
        response: { 200: listEnvelope(DeliverySchema).describe('One page of deliveries') },
      },
    },
    async (request, reply) => {
      const query = parseListQuery(request.query);
      const subscription = readSubscription(db, authorizedWebsite(request).id, request.params.webhookId);
      return sendData(
        request,
        reply,
        pageOf(listDeliveriesPage(db, subscription.id, query, request.query.state), query, (d) => d.id),
      );
    },
  );

  app.get(
    `${BASE}/:webhookId/deliveries/:deliveryId`,
    {
      config: { access: READ, errors: ['webhook.not_found', 'webhook.delivery_not_found'] },
      schema: {
        summary: 'Read one delivery',
        tags: TAGS,
        params: DeliveryParamsSchema,
        response: { 200: dataEnvelope(DeliverySchema).describe('The delivery') },
      },
    },
    async (request, reply) => {
      const subscription = readSubscription(db, authorizedWebsite(request).id, request.params.webhookId);
      return sendData(request, reply, readDelivery(db, subscription.id, request.params.deliveryId));
    },
  );

  app.get(
    `${BASE}/:webhookId/deliveries/:deliveryId/attempts`,
    {
      config: { access: READ, errors: ['webhook.not_found', 'webhook.delivery_not_found'] },
      schema: {
        summary: "List a delivery's attempts in the order they were made",
        tags: TAGS,
        params: DeliveryParamsSchema,
        querystring: ListQuerySchema,
        response: { 200: listEnvelope(AttemptSchema).describe('One page of attempts') },
      },
    },
    async (request, reply) => {
      const query = parseListQuery(request.query);
      const subscription = readSubscription(db, authorizedWebsite(request).id, request.params.webhookId);
      const delivery = readDelivery(db, subscription.id, request.params.deliveryId);
      return sendData(
        request,
        reply,
        pageOf(
          listAttemptsPage(db, delivery.id, query),
          query,
          (a) => String(a.seq),
          ({ seq: _seq, ...attempt }) => attempt,
        ),
      );
    },
  );

  app.post(
    `${BASE}/:webhookId/deliveries/:deliveryId/resend`,
    {
      config: {
        access: MUTATE,
        errors: [
          'webhook.not_found',
          'webhook.delivery_not_found',
          'entitlement.capability_missing',
          'webhook.disabled',
        ],
      },
      schema: {
        summary: 'Send a delivery again: one manual attempt, queued now',
        tags: TAGS,
        params: DeliveryParamsSchema,
        body: EmptyBodySchema,
        response: { 202: dataEnvelope(ResendResultSchema).describe('The delivery and the job of its attempt') },
      },
    },
    async (request, reply) => {
      const website = authorizedWebsite(request);
      const subscription = readSubscription(db, website.id, request.params.webhookId);
      readDelivery(db, subscription.id, request.params.deliveryId);
      requireCapability(request);
      const { delivery, jobId } = db
        .transaction(() => resendDelivery(db, services.jobs, subscription, request.params.deliveryId))
        .immediate();
      return sendData(request, reply, { delivery, jobId }, 202);
    },
  );
};
