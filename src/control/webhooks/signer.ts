import { createHmac } from 'node:crypto';

/** The Standard Webhooks headers of one request (docs/contract.md#webhooks). */
export interface WebhookHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** `v1,<base64 HMAC-SHA256(key, id + "." + timestamp + "." + body)>`, one signature. */
export function computeSignature(key: Uint8Array, id: string, timestampSeconds: number, body: string): string {
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`, 'utf8').digest('base64')}`;
}

/**
 * The headers of one delivery attempt, signed with every key that signs now: the current one,
 * and during a rotation the previous one too, space-separated, as Standard Webhooks allows (a
 * receiver still holding the old secret verifies the second signature).
 */
export function signWebhook(
  keys: readonly Uint8Array[],
  id: string,
  timestampSeconds: number,
  body: string,
): WebhookHeaders {
  if (keys.length === 0) throw new Error('a webhook is signed with at least one key');
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': keys.map((key) => computeSignature(key, id, timestampSeconds, body)).join(' '),
  };
}
