/** The public face of src/platform/contract: what the rest of src/ may import from it. */
export { canonicalJson, sortKeysDeep } from './canonical-json.js';
export { computeItemChecksum } from './checksum.js';
export type { ChecksumInput } from './checksum.js';
export { compiledSchema } from './compiled-schema.js';
export {
  FieldMappingSchema,
  IngestItemSchema,
  LanguageTagSchema,
  MAX_URL_LENGTH,
  SOURCE_TYPES,
  SourceTypeSchema,
} from './ingest-item.js';
export type { FieldMapping, IngestItem, SourceType } from './ingest-item.js';
export { INGEST_BODY_LIMIT, MAX_BATCH_ITEMS } from './ingest-limits.js';
export {
  BatchRequestSchema,
  DELETE_REASONS,
  DeleteRequestSchema,
  HeartbeatRequestSchema,
  ItemRequestSchema,
  SchemaRequestSchema,
} from './ingest-requests.js';
export type { DeleteReason, HeartbeatInput } from './ingest-requests.js';
export type { BatchResult, DeleteResult, HeartbeatResult, ItemResult, SchemaResult } from './ingest-results.js';
export { PROVENANCE_METHODS, PROVENANCE_RANK } from './provenance.js';
export type { ProvenanceMethod } from './provenance.js';
export {
  canonicalString,
  deriveSigningKey,
  parseConnectorToken,
  sha256Hex,
  signCanonical,
  signRequest,
} from './signing.js';
export type { SignRequestInput, SignedHeaders } from './signing.js';
export { CONTRACT_VERSION, NODE_SCHEMA_VERSION, SIGNING_SCHEME } from './versions.js';
