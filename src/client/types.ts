/** Wire types of the ingest API, for connector authors (docs/contract.md#ingest-endpoints). */
export type SourceType = 'page' | 'post' | 'product' | 'category' | 'collection' | 'faq' | 'review' | 'event' | 'location' | 'profile' | 'doc' | 'media' | 'service' | 'custom';

export interface IngestItemInput {
  type: SourceType;
  id: string;
  url: string;
  canonical_url?: string;
  title?: string;
  html?: string;
  text?: string;
  json?: Record<string, unknown>;
  language?: string;
  /** `sha256:<64 hex>`; computeItemChecksum(item) gives the reference value. */
  checksum: string;
  updated_at?: string;
  attributes?: Record<string, unknown>;
}

export type { BatchResult, ItemResult } from '../contract/ingest-results.js';

export type DeleteReason = 'source_deleted' | 'gdpr_erasure' | 'connector_resync' | 'takedown';

export interface DeleteResult {
  tombstoned: string[];
  not_found: string[];
  republish_job_id: string | null;
}

export interface HeartbeatInput {
  cursor?: string | null;
  connector_state: 'idle' | 'syncing' | 'backfilling' | 'paused' | 'error';
  stats?: { items_seen?: number; items_pending?: number; last_error?: string | null };
}

export interface HeartbeatResult {
  next_action: 'continue' | 'pause' | 'backfill';
  server_time: string;
  server_time_unix: number;
}

export interface FieldMapping {
  source_path: string;
  target: 'title' | 'text' | 'language' | 'canonical_url' | 'updated_at' | 'attribute';
  attribute_name?: string;
  provenance_method: 'cms_field' | 'schema_org' | 'seo_meta' | 'text_extraction' | 'llm_inferred';
}

export interface SchemaResult {
  website_id: string;
  mappings: FieldMapping[];
  mappings_version: string;
}
