/** Per-item and per-batch outcomes of the ingest API (docs/contract.md#ingest-outcomes); shared by the daemon and the reference client. */
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
