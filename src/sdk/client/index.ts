/** @nodectl/cli/client: the reference ingest client (signing, checksums, retries, batching). */
export { IngestClient, CLIENT_VERSION, type IngestClientOptions, type SendOptions, type CallInfo } from './client.js';
export { MAX_BATCH_ITEMS } from '../../platform/contract/index.js';
export { SIGNING_SCHEME } from '../../platform/contract/index.js';
export { canonicalJson } from '../../platform/contract/index.js';
export { IngestError } from './errors.js';
export { computeItemChecksum, type ChecksumInput } from '../../platform/contract/index.js';
export {
  canonicalString,
  deriveSigningKey,
  parseConnectorToken,
  sha256Hex,
  signCanonical,
  signRequest,
  type SignRequestInput,
  type SignedHeaders,
} from '../../platform/contract/index.js';
export { DEFAULT_RETRY, retryDelayMs, parseRetryAfter, isRetryableStatus, type RetryPolicy } from './retry.js';
export type * from './types.js';
export type { BatchResult, IngestItemInput, SourceType } from './types.js';
