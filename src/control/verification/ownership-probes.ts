import type { Settings } from '../../platform/config/settings.js';
import { guardedFetch, type GuardedResponse } from '../../platform/net/guarded-fetch.js';
import { createHostResolver, type HostResolver } from '../../platform/net/host-resolver.js';

/** How ownership checks reach the outside: one resolver for TXT records and fetches, and the guarded fetcher. */
export interface OwnershipProbes {
  readonly resolver: HostResolver;
  /** A guarded GET (docs/websites.md "Guarded fetches"). */
  fetch(url: string): Promise<GuardedResponse>;
  /** The origin the HTTP methods fetch for `domain` (setting verificationBaseUrl; https://<domain> by default). */
  originOf(domain: string): string;
}

export type ProbeSettings = Pick<
  Settings,
  'dnsServers' | 'dnsTimeoutMs' | 'fetchAllowPrivateAddresses' | 'fetchAllowedAddresses' | 'verificationBaseUrl'
>;

export function createOwnershipProbes(settings: ProbeSettings): OwnershipProbes {
  const resolver = createHostResolver({ servers: settings.dnsServers, timeoutMs: settings.dnsTimeoutMs });
  return {
    resolver,
    fetch: (url) =>
      guardedFetch(url, {
        resolver,
        allowPrivateAddresses: settings.fetchAllowPrivateAddresses,
        allowedRanges: settings.fetchAllowedAddresses ?? [],
      }),
    originOf: (domain) => verificationOrigin(settings, domain),
  };
}

/** The origin the HTTP methods fetch for `domain`: verificationBaseUrl with {domain} filled in. */
export function verificationOrigin(settings: Pick<Settings, 'verificationBaseUrl'>, domain: string): string {
  return settings.verificationBaseUrl.replace('{domain}', domain);
}
