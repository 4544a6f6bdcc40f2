import { GuardedFetchError, type GuardedResponse } from '../../../platform/net/guarded-fetch.js';
import type { OwnershipProbes } from '../ownership-probes.js';

/** A guarded GET for an ownership proof: the answer, or the failure in words for the evidence. */
export async function fetchProof(
  probes: OwnershipProbes,
  url: string,
): Promise<{ response: GuardedResponse } | { failure: string }> {
  try {
    const response = await probes.fetch(url);
    if (response.status < 200 || response.status > 299)
      return { failure: `GET ${response.url}: HTTP ${response.status}` };
    return { response };
  } catch (error) {
    if (error instanceof GuardedFetchError) return { failure: `GET ${url}: ${error.failure}: ${error.message}` };
    throw error;
  }
}

/** `GET <url> (<address>): HTTP <status>`, with the redirects taken. */
export function describeFetch(response: GuardedResponse): string {
  const via = response.redirects.length > 0 ? ` via ${response.redirects.join(' -> ')}` : '';
  return `GET ${response.url}${via} (${response.remoteAddress || 'address unknown'}): HTTP ${response.status}${response.truncated ? ', body cut at 64 KiB' : ''}`;
}

/** Whether a proof's text is the token: the bare token or `nodectl-verify=<token>`, spaces around ignored. */
export function matchesToken(text: string, token: string): boolean {
  const value = text.trim();
  return value === token || value === `nodectl-verify=${token}`;
}
