import { newUlid } from '../../platform/ids/ulid.js';
import type { GuardedFetchOptions } from '../../platform/net/guarded-fetch.js';
import { isDelivered, postWebhook } from './send.js';
import { signWebhook } from './signer.js';
import { signingKeysOf, type SubscriptionRecord } from './subscriptions.js';

/** The type of a test ping: not an event of the catalogue, never stored, never retried. */
export const PING_TYPE = 'webhook.test';

/**
 * Sends one signed test request to the subscription's URL now and answers what came back, so an
 * administrator sees at once whether the receiver is reachable and verifies the signature. It is
 * signed and guarded like a delivery; nothing is stored.
 */
export async function pingSubscription(
  subscription: SubscriptionRecord,
  masterKey: Uint8Array,
  fetchOptions: GuardedFetchOptions,
  now: number,
) {
  const id = `evt_${newUlid(now)}`;
  const body = JSON.stringify({
    id,
    type: PING_TYPE,
    created_at: new Date(now).toISOString(),
    website_id: subscription.websiteId,
    data: { subscription_id: subscription.id },
  });
  const headers = signWebhook(signingKeysOf(subscription, masterKey, now), id, Math.floor(now / 1000), body);
  const outcome = await postWebhook(subscription.url, headers, body, fetchOptions);
  return {
    eventId: id,
    delivered: isDelivered(outcome),
    status: outcome.status,
    durationMs: outcome.durationMs,
    responseExcerpt: outcome.excerpt,
    error: outcome.error,
  };
}
