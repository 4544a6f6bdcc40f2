import type { FieldMapping } from './ingest-item.js';

/** Answers of the ingest API (docs/contract.md#ingest-outcomes); shared by the daemon and the reference client. */
export interface ItemResult {
  id: string | null;
  status: 'accepted' | 'skipped' | 'error';
  checksum: string | null;
  raw_content_id?: string;
  job_id?: string | null;
  reason?: 'unchanged_checksum' | 'tombstoned' | 'idempotent_replay';
  /** details: e.g. {limit, used} of entitlement.limit_reached. */
  error?: { code: string; message: string; details?: Record<string, unknown> };
}

export interface BatchResult {
  website_id: string;
  received: number;
  accepted: number;
  skipped: number;
  errored: number;
  results: ItemResult[];
}

/** The answer of /v1/ingest/delete. */
export interface DeleteResult {
  tombstoned: string[];
  not_found: string[];
  /** The node.republish job when something is published, else the content.ingest job; null when nothing was deleted. */
  republish_job_id: string | null;
}

/** The answer of /v1/ingest/heartbeat (docs/contract.md#heartbeat). */
export interface HeartbeatResult {
  next_action: 'continue' | 'pause' | 'backfill';
  server_time: string;
  server_time_unix: number;
}

/** The answer of /v1/ingest/schema (docs/contract.md#schema-mapping). */
export interface SchemaResult {
  website_id: string;
  mappings: FieldMapping[];
  mappings_version: string;
}
