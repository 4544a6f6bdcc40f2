import { NODECTL_VERSION, type Settings } from '../../platform/config/index.js';
import {
  GuardedFetchError,
  guardedFetch,
  type GuardedFetchOptions,
  createHostResolver,
} from '../../platform/net/index.js';
import type { WebhookHeaders } from './signer.js';

/** docs/contract.md#webhooks: a delivery request times out after 10 s and follows no redirect. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** Each attempt keeps at most this much of the receiver's answer. */
export const RESPONSE_EXCERPT_BYTES = 1024;

/** What one delivery attempt got: the answer's status (null when none came), how long it took, and why it failed. */
export interface AttemptOutcome {
  status: number | null;
  durationMs: number;
  /** The first 1 KiB of the answer's body, as text. */
  excerpt: string;
  /** Why no 2xx came: `http <status>`, or the fetch failure (`timeout: ...`, `address: ...`); null on success. */
  error: string | null;
}

/**
 * The fetch policy of deliveries: the same private-address flag, allowed ranges
 * and DNS servers as ownership fetches (docs/websites.md "Guarded fetches").
 */
export function deliveryFetchOptions(settings: Settings): GuardedFetchOptions {
  return {
    allowPrivateAddresses: settings.fetchAllowPrivateAddresses,
    allowedRanges: settings.fetchAllowedAddresses ?? [],
    resolver: createHostResolver({ servers: settings.dnsServers, timeoutMs: settings.dnsTimeoutMs }),
  };
}

/**
 * POSTs one signed webhook through the guarded fetcher (no request forgery into the service's
 * own network, 10 s for the whole exchange, no redirect followed: a 3xx is a failed attempt) and
 * reports the outcome; it never throws for the receiver's sake.
 */
export async function postWebhook(
  url: string,
  headers: WebhookHeaders,
  body: string,
  fetchOptions: GuardedFetchOptions,
): Promise<AttemptOutcome> {
  const started = performance.now();
  const duration = () => Math.round(performance.now() - started);
  try {
    const response = await guardedFetch(url, {
      ...fetchOptions,
      method: 'POST',
      body,
      headers: { ...headers, 'content-type': 'application/json', 'user-agent': `nodectl-webhooks/${NODECTL_VERSION}` },
      timeoutMs: DELIVERY_TIMEOUT_MS,
      maxRedirects: 0,
      maxBytes: RESPONSE_EXCERPT_BYTES,
    });
    const ok = response.status >= 200 && response.status < 300;
    return {
      status: response.status,
      durationMs: duration(),
      excerpt: response.body.toString('utf8'),
      error: ok ? null : `http ${response.status}`,
    };
  } catch (error) {
    const reason =
      error instanceof GuardedFetchError
        ? `${error.failure}: ${error.message}`
        : `network: ${(error as Error).message}`;
    return { status: null, durationMs: duration(), excerpt: '', error: reason.slice(0, 1000) };
  }
}

/** Whether an outcome is a success (docs/contract.md#webhooks: any 2xx). */
export function isDelivered(outcome: AttemptOutcome): boolean {
  return outcome.status !== null && outcome.status >= 200 && outcome.status < 300;
}
