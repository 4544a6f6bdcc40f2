/** nodectl/client: the reference ingest client (signing, checksums, retries, batching). */
export { IngestClient, CLIENT_VERSION, type IngestClientOptions, type SendOptions, type CallInfo } from './client.js';
export { MAX_BATCH_ITEMS } from '../contract/ingest-limits.js';
export { SIGNING_SCHEME } from '../contract/versions.js';
export { canonicalJson } from '../contract/canonical-json.js';
export { IngestError } from './errors.js';
export { computeItemChecksum, type ChecksumInput } from './checksum.js';
export { canonicalString, deriveSigningKey, parseConnectorToken, sha256Hex, signCanonical, signRequest, type SignRequestInput, type SignedHeaders } from './signing.js';
export { DEFAULT_RETRY, retryDelayMs, parseRetryAfter, isRetryableStatus, type RetryPolicy } from './retry.js';
export type * from './types.js';
