import { isIP } from 'node:net';
import { z } from 'zod';
import type { Settings } from '../../platform/config/settings.js';
import { AppError } from '../../platform/errors/app-error.js';
import { EVENT_TYPES, EventTypeSchema } from '../events/catalogue.js';
import { ListQuerySchema } from '../../platform/http/list-query.js';
import { checkAddress } from '../../platform/net/address-policy.js';
import { WebsiteIdParamsSchema } from '../websites/schemas.js';
import { DELIVERY_STATES, DeliveryFilterSchema } from './deliveries.js';

/**
 * The webhook routes' request and answer schemas (docs/webhooks.md "Subscriptions"): the route
 * layer validates with them and the OpenAPI document is generated from them. Bodies refuse
 * unknown fields; answers are open objects.
 */

const WebhookUrlSchema = z
  .string()
  .trim()
  .max(2048, 'must be at most 2,048 characters')
  .refine((text) => {
    try {
      const url = new URL(text);
      return (url.protocol === 'https:' || url.protocol === 'http:') && url.username === '' && url.password === '';
    } catch {
      return false;
    }
  }, 'must be an absolute http(s) URL without a user name or password, e.g. https://hooks.example.com/nodectl');

const EventsSchema = z
  .array(EventTypeSchema)
  .min(1, `must list at least one event: ${EVENT_TYPES.join(', ')}`)
  .max(EVENT_TYPES.length * 2);
const DescriptionSchema = z.string().trim().max(500, 'must be at most 500 characters');
const URL_TEXT =
  'Where deliveries are POSTed: http(s), no user name or password; an IP address deliveries may not reach is refused';
const EVENTS_TEXT = 'The event types to receive (docs/webhooks.md "Event catalogue"); kept sorted, without repeats';

/** POST /v1/websites/:id/webhooks. */
export const CreateSubscriptionSchema = z.strictObject({
  url: WebhookUrlSchema.describe(URL_TEXT),
  events: EventsSchema.describe(EVENTS_TEXT),
  description: DescriptionSchema.default('').describe('A note for people; default empty'),
});

/** PATCH /v1/websites/:id/webhooks/:webhookId: at least one field. */
export const UpdateSubscriptionSchema = z
  .strictObject({
    url: WebhookUrlSchema.optional().describe(URL_TEXT),
    events: EventsSchema.optional().describe(EVENTS_TEXT),
    description: DescriptionSchema.optional(),
    enabled: z
      .boolean()
      .optional()
      .describe('false disables by hand (disabledReason manual); true enables and starts a fresh failing window'),
  })
  .refine((body) => Object.keys(body).length > 0, 'give at least one of url, events, description, enabled');

/** The routes that take no body (rotate, test, resend): nothing, or `{}`. */
export const EmptyBodySchema = z.strictObject({}).optional();

export const WebhookParamsSchema = WebsiteIdParamsSchema.extend({
  webhookId: z.string().describe('The subscription id (whk_...)'),
});
export const DeliveryParamsSchema = WebhookParamsSchema.extend({ deliveryId: z.string().describe('The delivery id') });

/** GET .../deliveries: ?limit, ?cursor and ?state. */
export const DeliveryListQuerySchema = ListQuerySchema.extend({
  state: DeliveryFilterSchema.shape.state.describe('Only the deliveries in this state'),
});

const isoTime = z.iso.datetime();

/** A subscription as the routes answer it: never the secret, never its hash (src/control/webhooks/subscriptions.ts). */
export const SubscriptionSchema = z.object({
  id: z.string().describe('whk_ followed by a ULID'),
  websiteId: z.string(),
  url: z.string(),
  events: z.array(EventTypeSchema).describe('Sorted, without repeats'),
  description: z.string(),
  enabled: z.boolean(),
  disabledReason: z
    .enum(['manual', 'gone', 'failing'])
    .nullable()
    .describe(
      'manual (PATCH enabled: false), gone (the receiver answered 410) or failing (3 days of failures); null while enabled',
    ),
  secretVersion: z.number().int().min(1).describe('Goes up at each rotation'),
  previousSecretExpiresAt: isoTime
    .nullable()
    .describe('Until when the previous secret also signs (24 h after a rotation); null when none does'),
  failingSince: isoTime.nullable().describe('The first failed attempt since the last success'),
  createdAt: isoTime,
  updatedAt: isoTime,
});

/** The create and rotate answer: the subscription and its secret, shown this once. */
export const SubscriptionWithSecretSchema = SubscriptionSchema.extend({
  secret: z
    .string()
    .describe('whsec_<base64 key>: verify deliveries with it (Standard Webhooks); shown only in this answer'),
});

/** POST .../test: what the receiver answered to one signed webhook.test request. */
export const PingResultSchema = z.object({
  eventId: z.string().describe('The webhook-id of the test request'),
  delivered: z.boolean().describe('The receiver answered 2xx'),
  status: z.number().int().nullable().describe("The receiver's HTTP status; null when no answer came"),
  durationMs: z.number().int().min(0),
  responseExcerpt: z.string().describe("The first 1 KiB of the answer's body"),
  error: z
    .string()
    .nullable()
    .describe('Why it was not delivered (http <status>, or the fetch failure); null on success'),
});

/** One event's delivery to one subscription (src/control/webhooks/deliveries.ts). */
export const DeliverySchema = z.object({
  id: z.string(),
  subscriptionId: z.string(),
  eventId: z.string().describe('The event id, sent as webhook-id on every attempt'),
  eventType: EventTypeSchema,
  state: z.enum(DELIVERY_STATES).describe('pending (attempts remain), succeeded or failed (every retry failed)'),
  attempts: z.number().int().min(0),
  nextAttemptAt: isoTime.nullable().describe('When the next retry is due; null when none is'),
  lastStatus: z.number().int().nullable().describe("The receiver's status at the last attempt"),
  lastError: z.string().nullable(),
  createdAt: isoTime,
  updatedAt: isoTime,
});

/** One attempt of a delivery, in the order they were made. */
export const AttemptSchema = z.object({
  id: z.string(),
  trigger: z.enum(['schedule', 'manual']).describe('schedule (the retry plan) or manual (a resend)'),
  startedAt: isoTime,
  durationMs: z.number().int().min(0),
  status: z.number().int().nullable().describe("The receiver's HTTP status; null when no answer came"),
  error: z.string().nullable(),
  responseExcerpt: z.string().describe("The first 1 KiB of the answer's body"),
});

/** POST .../resend: the delivery and the job of its one manual attempt. */
export const ResendResultSchema = z.object({
  delivery: DeliverySchema,
  jobId: z.string().describe('The webhook.deliver job queued on the delivery lane'),
});

export type CreateSubscriptionBody = z.input<typeof CreateSubscriptionSchema>;
export type UpdateSubscriptionBody = z.input<typeof UpdateSubscriptionSchema>;
export type Subscription = z.output<typeof SubscriptionSchema>;
export type Delivery = z.output<typeof DeliverySchema>;

/**
 * A URL whose host is an IP address the delivery fetcher would refuse (loopback, private,
 * metadata, ...) is refused when the subscription is made, with what to fix. Host names are
 * checked at each delivery, when they are resolved (docs/webhooks.md "Request forgery").
 */
export function assertDeliverableUrl(text: string, settings: Settings): void {
  const host = new URL(text).hostname.replace(/^\[(.*)\]$/, '$1');
  if (!isIP(host)) return;
  const verdict = checkAddress(host, {
    allowPrivateAddresses: settings.fetchAllowPrivateAddresses,
    allowedRanges: settings.fetchAllowedAddresses ?? [],
  });
  if (verdict.allowed) return;
  throw new AppError(
    'validation.failed',
    `The webhook URL is not valid: deliveries never go to ${verdict.reason} (setting fetchAllowPrivateAddresses opens private ranges on a self-hosted network).`,
    {
      details: { fields: [{ path: 'url', message: `${host} is not reachable by deliveries: ${verdict.reason}` }] },
    },
  );
}
