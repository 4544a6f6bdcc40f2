import type { z } from 'zod';
import type { AnalyticsRangeSchema, WebsiteAnalyticsSchema } from '../../control/analytics/index.js';
import type {
  ConnectorSchema,
  ConnectorWithTokenSchema,
  CreateConnectorBodySchema,
} from '../../control/connectors/index.js';
import type { ListQuerySchema } from '../../platform/http/index.js';
import type {
  JobDetailSchema,
  JobSchema,
  JobsQuerySchema,
  CreateWebsiteBodySchema,
  DeleteWebsiteBodySchema,
  UpdateWebsiteBodySchema,
  WebsiteSchema,
} from '../../control/websites/index.js';
import type { OrganizationSchema } from '../../control/organizations/index.js';
import type { SearchHitSchema, SearchQuerySchema } from '../../output/knowledge/index.js';
import type {
  PublishProgressEventSchema,
  PublishedVersionSchema,
  PublishRequestSchema,
  PublishResultSchema,
  RollbackRequestSchema,
  RollbackResultSchema,
  TakedownResultSchema,
} from '../../output/publish/index.js';
import type {
  CreateSubscriptionSchema,
  DeliveryListQuerySchema,
  DeliverySchema,
  PingResultSchema,
  SubscriptionSchema,
  SubscriptionWithSecretSchema,
  UpdateSubscriptionSchema,
} from '../../control/webhooks/index.js';
import { createTransport, pathOf, type Call, type Query, type TransportOptions } from './transport.js';

/**
 * The typed client of the management API (`@nodectl/cli/api`). Its request and answer types are the
 * zod schemas the routes validate with and the OpenAPI document is generated from: a request
 * body is z.input of the route's body schema, an answer z.output of its data schema, so a route
 * that changes its schema changes the client's types with it (tsc fails on a caller that no
 * longer fits). A query is each parameter as the route reads it, all optional.
 *
 * Retries (on by default, `retries: 2`; `retries: 0` turns them off): a call is repeated only
 * when repeating it cannot do the work twice. Any method is retried after a 429 (the daemon
 * refused it before doing anything) and when the request never reached the daemon (connection
 * refused, host not found or unreachable, connect timeout); a GET also after any other network
 * failure and after an answer whose envelope says `retryable: true` (503 service.unavailable).
 * A code marked not retryable (e.g. 503 billing.unconfigured), a POST, PATCH or DELETE that
 * may have reached a handler, an answer that is not the envelope and a call that ran out of
 * timeoutMs are never repeated. The wait is the answer's Retry-After, else a random wait
 * between half and all of retryBaseMs * 2^(n-1) (500 ms, 1 s, ...), at most maxRetryDelayMs
 * (30 s); a Retry-After longer than that fails the call at once (ApiError.retryAfterSeconds
 * says when to come back). The ApiError thrown is the last attempt's; `attempts` counts them.
 */

/** z.input of a request body schema. */
type Body<S extends z.ZodType> = z.input<S>;
/** z.output of an answer's data schema. */
type Data<S extends z.ZodType> = z.output<S>;
/** A query as the route reads it (coerced values, e.g. limit a number), every parameter optional. */
type QueryOf<S extends z.ZodType> = Partial<z.output<S>>;

/** One page of a list: its items and the cursor of the next page (null on the last). */
export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

export type ListQuery = QueryOf<typeof ListQuerySchema>;

export interface ApiClientOptions extends TransportOptions {}

export type Website = Data<typeof WebsiteSchema>;
export type CreateWebsiteBody = Body<typeof CreateWebsiteBodySchema>;
export type UpdateWebsiteBody = Body<typeof UpdateWebsiteBodySchema>;
export type DeleteWebsiteBody = Body<typeof DeleteWebsiteBodySchema>;
export type Organization = Data<typeof OrganizationSchema>;
export type PublishBody = Body<typeof PublishRequestSchema>;
export type PublishResult = Data<typeof PublishResultSchema>;
export type PublishedVersion = Data<typeof PublishedVersionSchema>;
export type PublishProgressEvent = Data<typeof PublishProgressEventSchema>;
export type RollbackBody = Body<typeof RollbackRequestSchema>;
export type RollbackResult = Data<typeof RollbackResultSchema>;
export type TakedownResult = Data<typeof TakedownResultSchema>;
export type Job = Data<typeof JobSchema>;
/** A job read alone: with the items it refused (itemErrors). */
export type JobDetail = Data<typeof JobDetailSchema>;
export type JobsQuery = QueryOf<typeof JobsQuerySchema>;
export type Connector = Data<typeof ConnectorSchema>;
export type ConnectorWithToken = Data<typeof ConnectorWithTokenSchema>;
export type CreateConnectorBody = Body<typeof CreateConnectorBodySchema>;
export type WebhookSubscription = Data<typeof SubscriptionSchema>;
export type WebhookSubscriptionWithSecret = Data<typeof SubscriptionWithSecretSchema>;
export type CreateWebhookBody = Body<typeof CreateSubscriptionSchema>;
export type UpdateWebhookBody = Body<typeof UpdateSubscriptionSchema>;
export type WebhookPingResult = Data<typeof PingResultSchema>;
export type WebhookDelivery = Data<typeof DeliverySchema>;
export type WebhookDeliveriesQuery = QueryOf<typeof DeliveryListQuerySchema>;
export type SearchHit = Data<typeof SearchHitSchema>;
/** q is required; kind, limit and cursor are not. */
export type SearchQuery = QueryOf<typeof SearchQuerySchema> & { q: string };
export type WebsiteAnalytics = Data<typeof WebsiteAnalyticsSchema>;
export type AnalyticsQuery = QueryOf<typeof AnalyticsRangeSchema>;

/**
 * Every page of a list, in order: calls `page` with each next_cursor until the last page.
 * `collectPages((cursor) => api.jobs.list(websiteId, { cursor }))`.
 */
export async function collectPages<T>(page: (cursor: string | undefined) => Promise<Page<T>>): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const next = await page(cursor);
    items.push(...next.items);
    cursor = next.next_cursor ?? undefined;
  } while (cursor !== undefined);
  return items;
}

const queryOf = (query: object | undefined): Query | undefined => query as Query | undefined;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * A client of one daemon with one credential; each method is one
 * route, resolving to the answer's data or rejecting with an ApiError.
 */
export function createApiClient(options: ApiClientOptions) {
  const call: Call = createTransport(options);
  return {
    organizations: {
      /** GET /v1/organizations: the caller's organizations (an API key: its own). */
      list: (query?: ListQuery) => call<Page<Organization>>('GET', '/v1/organizations', { query: queryOf(query) }),
    },
    websites: {
      /** GET /v1/organizations/:id/websites */
      list: (organizationId: string, query?: ListQuery) =>
        call<Page<Website>>('GET', pathOf`/v1/organizations/${organizationId}/websites`, { query: queryOf(query) }),
      /** GET /v1/websites/:id */
      get: (websiteId: string) => call<Website>('GET', pathOf`/v1/websites/${websiteId}`),
      /** POST /v1/organizations/:id/websites (organization_admin) */
      create: (organizationId: string, body: CreateWebsiteBody) =>
        call<Website>('POST', pathOf`/v1/organizations/${organizationId}/websites`, { body }),
      /** PATCH /v1/websites/:id (editor): name, brand (null: the name) or default language; never the domain. */
      update: (websiteId: string, body: UpdateWebsiteBody) =>
        call<Website>('PATCH', pathOf`/v1/websites/${websiteId}`, { body }),
      /**
       * DELETE /v1/websites/:id (organization_admin): for good, with
       * its graph and every published version; `confirm` is its domain.
       */
      delete: (websiteId: string, body: DeleteWebsiteBody) =>
        call<undefined>('DELETE', pathOf`/v1/websites/${websiteId}`, { body }),
    },
    publish: {
      /** POST /v1/websites/:id/publish (editor): compiles and publishes; answers once the new version is live. */
      publish: (websiteId: string, body: PublishBody = {}) =>
        call<PublishResult>('POST', pathOf`/v1/websites/${websiteId}/publish`, { body }),
      /**
       * The same publish, streamed (Accept: text/event-stream): `onProgress` gets each progress
       * event ({stage, done, total, ...}) while the daemon compiles, checks and uploads; resolves
       * and rejects as publish() does. A daemon without the stream answers at the end, with no progress.
       */
      publishWithProgress: (
        websiteId: string,
        body: PublishBody = {},
        onProgress: (event: PublishProgressEvent) => void = () => {},
      ) =>
        call<PublishResult>('POST', pathOf`/v1/websites/${websiteId}/publish`, {
          body,
          onEvent: (event) => {
            if (event.event !== 'progress') return;
            const data = parseJson(event.data) as Partial<PublishProgressEvent> | undefined;
            // Checked by shape, not by the schema (the client loads no route module); one it cannot read is skipped.
            if (typeof data?.stage === 'string' && typeof data.done === 'number' && typeof data.total === 'number')
              onProgress(data as PublishProgressEvent);
          },
        }),
      /** GET /v1/websites/:id/versions: the stored versions, newest first. */
      versions: (websiteId: string, query?: ListQuery) =>
        call<Page<PublishedVersion>>('GET', pathOf`/v1/websites/${websiteId}/versions`, { query: queryOf(query) }),
      /** POST /v1/websites/:id/rollback (editor): serves a stored version again. */
      rollback: (websiteId: string, body: RollbackBody) =>
        call<RollbackResult>('POST', pathOf`/v1/websites/${websiteId}/rollback`, { body }),
      /** DELETE /v1/websites/:id/node (organization_admin): takes the node down. */
      takeDown: (websiteId: string) => call<TakedownResult>('DELETE', pathOf`/v1/websites/${websiteId}/node`),
    },
    jobs: {
      /** GET /v1/websites/:id/jobs: the website's jobs, newest first. */
      list: (websiteId: string, query?: JobsQuery) =>
        call<Page<Job>>('GET', pathOf`/v1/websites/${websiteId}/jobs`, { query: queryOf(query) }),
      /** GET /v1/websites/:id/jobs/:jobId */
      get: (websiteId: string, jobId: string) =>
        call<JobDetail>('GET', pathOf`/v1/websites/${websiteId}/jobs/${jobId}`),
    },
    connectors: {
      /** GET /v1/websites/:id/connectors (no secrets) */
      list: (websiteId: string, query?: ListQuery) =>
        call<Page<Connector>>('GET', pathOf`/v1/websites/${websiteId}/connectors`, { query: queryOf(query) }),
      /** POST /v1/websites/:id/connectors (organization_admin): the token is in this answer only. */
      create: (websiteId: string, body: CreateConnectorBody) =>
        call<ConnectorWithToken>('POST', pathOf`/v1/websites/${websiteId}/connectors`, { body }),
      /**
       * POST /v1/connectors/:cid/rotate (organization_admin): a
       * new token, in this answer only; the old one stops working.
       */
      rotate: (connectorId: string) => call<ConnectorWithToken>('POST', pathOf`/v1/connectors/${connectorId}/rotate`),
      /** POST /v1/connectors/:cid/suspend (organization_admin): its requests are refused until it is resumed. */
      suspend: (connectorId: string) => call<Connector>('POST', pathOf`/v1/connectors/${connectorId}/suspend`),
      /** POST /v1/connectors/:cid/resume (organization_admin): a suspended connector's requests are accepted again. */
      resume: (connectorId: string) => call<Connector>('POST', pathOf`/v1/connectors/${connectorId}/resume`),
      /** DELETE /v1/connectors/:cid (organization_admin): revoked for good. */
      delete: (connectorId: string) => call<undefined>('DELETE', pathOf`/v1/connectors/${connectorId}`),
    },
    webhooks: {
      /** GET /v1/websites/:id/webhooks (organization_admin) */
      list: (websiteId: string, query?: ListQuery) =>
        call<Page<WebhookSubscription>>('GET', pathOf`/v1/websites/${websiteId}/webhooks`, { query: queryOf(query) }),
      /** POST /v1/websites/:id/webhooks (organization_admin): the signing secret is in this answer only. */
      create: (websiteId: string, body: CreateWebhookBody) =>
        call<WebhookSubscriptionWithSecret>('POST', pathOf`/v1/websites/${websiteId}/webhooks`, { body }),
      /** GET /v1/websites/:id/webhooks/:webhookId (organization_admin) */
      get: (websiteId: string, webhookId: string) =>
        call<WebhookSubscription>('GET', pathOf`/v1/websites/${websiteId}/webhooks/${webhookId}`),
      /**
       * PATCH /v1/websites/:id/webhooks/:webhookId (organization_admin):
       * url, events, description, or enabled (false disables by hand).
       */
      update: (websiteId: string, webhookId: string, body: UpdateWebhookBody) =>
        call<WebhookSubscription>('PATCH', pathOf`/v1/websites/${websiteId}/webhooks/${webhookId}`, { body }),
      /**
       * GET /v1/websites/:id/webhooks/:webhookId/deliveries
       * (organization_admin): newest first, optionally of one state.
       */
      deliveries: (websiteId: string, webhookId: string, query?: WebhookDeliveriesQuery) =>
        call<Page<WebhookDelivery>>('GET', pathOf`/v1/websites/${websiteId}/webhooks/${webhookId}/deliveries`, {
          query: queryOf(query),
        }),
      /** DELETE /v1/websites/:id/webhooks/:webhookId (organization_admin) */
      delete: (websiteId: string, webhookId: string) =>
        call<undefined>('DELETE', pathOf`/v1/websites/${websiteId}/webhooks/${webhookId}`),
      /**
       * POST /v1/websites/:id/webhooks/:webhookId/test (organization_admin):
       * one signed webhook.test request, and what the receiver answered.
       */
      test: (websiteId: string, webhookId: string) =>
        call<WebhookPingResult>('POST', pathOf`/v1/websites/${websiteId}/webhooks/${webhookId}/test`),
    },
    knowledge: {
      /** GET /v1/websites/:id/knowledge/search: ranked hits over what the next publish would export. */
      search: (websiteId: string, query: SearchQuery) =>
        call<Page<SearchHit>>('GET', pathOf`/v1/websites/${websiteId}/knowledge/search`, { query: queryOf(query) }),
    },
    analytics: {
      /** GET /v1/websites/:id/analytics: per UTC day, default the last 30 days. */
      read: (websiteId: string, query?: AnalyticsQuery) =>
        call<WebsiteAnalytics>('GET', pathOf`/v1/websites/${websiteId}/analytics`, { query: queryOf(query) }),
    },
  };
}

export type ApiClient = ReturnType<typeof createApiClient>;
