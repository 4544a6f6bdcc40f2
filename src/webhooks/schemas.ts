import { isIP } from 'node:net';
import { z } from 'zod';
import type { Settings } from '../config/settings.js';
import { AppError } from '../errors/app-error.js';
import { EVENT_TYPES, EventTypeSchema } from '../events/catalogue.js';
import { checkAddress } from '../net/address-policy.js';

const WebhookUrlSchema = z.string().trim().max(2048, 'must be at most 2,048 characters').refine((text) => {
  try {
    const url = new URL(text);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.username === '' && url.password === '';
  } catch {
    return false;
  }
}, 'must be an absolute http(s) URL without a user name or password, e.g. https://hooks.example.com/nodectl');

const EventsSchema = z.array(EventTypeSchema).min(1, `must list at least one event: ${EVENT_TYPES.join(', ')}`).max(EVENT_TYPES.length * 2);
const DescriptionSchema = z.string().trim().max(500, 'must be at most 500 characters');

/** POST /v1/websites/:id/webhooks. */
export const CreateSubscriptionSchema = z.strictObject({ url: WebhookUrlSchema, events: EventsSchema, description: DescriptionSchema.default('') });

/** PATCH /v1/websites/:id/webhooks/:webhookId: at least one field. */
export const UpdateSubscriptionSchema = z
  .strictObject({ url: WebhookUrlSchema.optional(), events: EventsSchema.optional(), description: DescriptionSchema.optional(), enabled: z.boolean().optional() })
  .refine((body) => Object.keys(body).length > 0, 'give at least one of url, events, description, enabled');

/** The routes that take no body (rotate, test, resend): nothing, or `{}`. */
export const EmptyBodySchema = z.strictObject({});

/**
 * A URL whose host is an IP address the delivery fetcher would refuse (loopback, private,
 * metadata, ...) is refused when the subscription is made, with what to fix. Host names are
 * checked at each delivery, when they are resolved (docs/webhooks.md "Request forgery").
 */
export function assertDeliverableUrl(text: string, settings: Settings): void {
  const host = new URL(text).hostname.replace(/^\[(.*)\]$/, '$1');
  if (!isIP(host)) return;
  const verdict = checkAddress(host, { allowPrivateAddresses: settings.fetchAllowPrivateAddresses, allowedRanges: settings.fetchAllowedAddresses ?? [] });
  if (verdict.allowed) return;
  throw new AppError('validation.failed', `The webhook URL is not valid: deliveries never go to ${verdict.reason} (setting fetchAllowPrivateAddresses opens private ranges on a self-hosted network).`, {
    details: { fields: [{ path: 'url', message: `${host} is not reachable by deliveries: ${verdict.reason}` }] },
  });
}
