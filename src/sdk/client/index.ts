/** nodectl/client: the reference ingest client (signing, checksums, retries, batching). */
export { IngestClient, CLIENT_VERSION, type IngestClientOptions, type SendOptions, type CallInfo } from './client.js';
export { MAX_BATCH_ITEMS } from '../../platform/contract/ingest-limits.js';
export { SIGNING_SCHEME } from '../../platform/contract/versions.js';
export { canonicalJson } from '../../platform/contract/canonical-json.js';
export { IngestError } from './errors.js';
export { computeItemChecksum, type ChecksumInput } from '../../platform/contract/checksum.js';
export {
  canonicalString,
  deriveSigningKey,
  parseConnectorToken,
  sha256Hex,
  signCanonical,
  signRequest,
  type SignRequestInput,
  type SignedHeaders,
} from '../../platform/contract/signing.js';
export { DEFAULT_RETRY, retryDelayMs, parseRetryAfter, isRetryableStatus, type RetryPolicy } from './retry.js';
export type * from './types.js';
