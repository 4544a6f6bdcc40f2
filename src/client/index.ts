/** nodectl/client: the reference ingest client (signing, checksums, retries, batching). */
export { IngestClient, CLIENT_VERSION, MAX_BATCH_ITEMS, type IngestClientOptions, type SendOptions, type CallInfo } from './client.js';
export { IngestError } from './errors.js';
export { computeItemChecksum, canonicalJson, type ChecksumInput } from './checksum.js';
export { SIGNING_SCHEME, canonicalString, deriveSigningKey, parseConnectorToken, sha256Hex, signCanonical, signRequest, type SignRequestInput, type SignedHeaders } from './signing.js';
export { DEFAULT_RETRY, retryDelayMs, parseRetryAfter, isRetryableStatus, type RetryPolicy } from './retry.js';
export type * from './types.js';
