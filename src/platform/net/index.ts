/** The public face of src/platform/net: what the rest of src/ may import from it. */
export { checkAddress, isAddressOrRange } from './address-policy.js';
export { GuardedFetchError, guardedFetch } from './guarded-fetch.js';
export type { GuardedFetchOptions, GuardedResponse } from './guarded-fetch.js';
export { createHostResolver, describeDnsError } from './host-resolver.js';
export type { HostResolver } from './host-resolver.js';
