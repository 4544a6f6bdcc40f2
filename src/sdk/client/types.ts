import type { IngestItem } from '../../platform/contract/ingest-item.js';

/** Wire types of the ingest API, for connector authors (docs/contract.md#ingest-endpoints); each is defined once in src/contract. */
export type { SourceType, FieldMapping } from '../../platform/contract/ingest-item.js';
export type { DeleteReason, HeartbeatInput } from '../../platform/contract/ingest-requests.js';
export type {
  BatchResult,
  DeleteResult,
  HeartbeatResult,
  ItemResult,
  SchemaResult,
} from '../../platform/contract/ingest-results.js';

/** One item as a connector sends it; `checksum` is `sha256:<64 hex>`, and computeItemChecksum(item) gives the reference value. */
export type IngestItemInput = IngestItem;
