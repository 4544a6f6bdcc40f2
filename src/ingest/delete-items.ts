import type { AppServices } from '../daemon/services.js';
import type { IngestWebsite } from './website-context.js';
import { CONTENT_INGEST_JOB } from './accept.js';
import type { DeleteReason } from './schemas.js';

export interface DeleteResult {
  tombstoned: string[];
  not_found: string[];
  republish_job_id: string | null;
}

/**
 * Tombstones items by connector id (every type sharing the id). The raw body is dropped at once;
 * for gdpr_erasure the url and checksum go too, so only the bare (type, id) tombstone remains
 * to keep the item from being re-ingested. A rebuild job removes what was derived from them.
 */
export function deleteItems(services: AppServices, website: IngestWebsite, ids: readonly string[], reason: DeleteReason): DeleteResult {
  const db = services.graphs.get(website.id);
  const find = db.prepare('SELECT item_type, item_id, state FROM raw_items WHERE item_id = ?');
  const tombstone = db.prepare(
    reason === 'gdpr_erasure'
      ? `UPDATE raw_items SET state = 'tombstoned', tombstone_reason = ?, body = NULL, url = '', canonical_url = NULL, checksum = '', language = NULL, last_error = NULL, processed_at = ? WHERE item_id = ?`
      : `UPDATE raw_items SET state = 'tombstoned', tombstone_reason = ?, body = NULL, processed_at = ? WHERE item_id = ? AND state != 'tombstoned'`,
  );
  const at = new Date(services.now()).toISOString();
  const tombstoned: string[] = [];
  const notFound: string[] = [];
  const removed: Array<{ type: string; id: string }> = [];
  db.transaction(() => {
    for (const id of [...new Set(ids)]) {
      const rows = find.all(id) as Array<{ item_type: string; item_id: string; state: string }>;
      if (rows.length === 0) {
        notFound.push(id);
        continue;
      }
      tombstone.run(reason, at, id);
      tombstoned.push(id);
      for (const row of rows) removed.push({ type: row.item_type, id: row.item_id });
    }
  }).immediate();
  let jobId: string | null = null;
  if (tombstoned.length > 0) {
    jobId = services.jobs.enqueue(CONTENT_INGEST_JOB, { website_id: website.id, raw_content_ids: [], removed, reason }).id;
  }
  return { tombstoned, not_found: notFound, republish_job_id: jobId };
}
