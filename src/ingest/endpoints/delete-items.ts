import type { AppServices } from '../../platform/app/services.js';
import { graphStatements } from '../graph/statements.js';
import { withWriteTurn } from '../graph/write-turn.js';
import { contentIngestJob } from '../graph/content-ingest-job.js';
import { hasPublishedNode, requestRepublish, type RepublishPayload } from '../../output/publish/republish-job.js';
import type { Db } from '../../platform/storage/sqlite.js';
import type { IngestWebsite } from './website-context.js';
import type { DeleteReason } from '../../platform/contract/ingest-requests.js';
import type { DeleteResult } from '../../platform/contract/ingest-results.js';

interface RawRow {
  item_type: string;
  item_id: string;
  state: string;
  url: string;
  canonical_url: string | null;
}

/**
 * Tombstones items by connector id (every type sharing the id). The raw body is dropped at once;
 * for gdpr_erasure the url and checksum go too, so only the bare (type, id) tombstone remains
 * to keep the item from being re-ingested. A content.ingest job removes what was derived from
 * them; when the website has something published, a coalesced node.republish (after it) takes
 * them off the live node, and for gdpr_erasure purges the earlier versions that held them
 * (docs/ingest.md "Deleting items").
 */
export async function deleteItems(
  services: AppServices,
  website: IngestWebsite,
  ids: readonly string[],
  reason: DeleteReason,
): Promise<DeleteResult> {
  const erase = reason === 'gdpr_erasure';
  const db = services.graphs.get(website.id);
  const find = db.prepare('SELECT item_type, item_id, state, url, canonical_url FROM raw_items WHERE item_id = ?');
  const tombstone = db.prepare(
    erase
      ? `UPDATE raw_items SET state = 'tombstoned', tombstone_reason = ?, body = NULL, url = '', canonical_url = NULL, checksum = '', language = NULL, last_error = NULL, processed_at = ? WHERE item_id = ?`
      : `UPDATE raw_items SET state = 'tombstoned', tombstone_reason = ?, body = NULL, processed_at = ? WHERE item_id = ? AND state != 'tombstoned'`,
  );
  const at = new Date(services.now()).toISOString();
  const tombstoned: string[] = [];
  const notFound: string[] = [];
  const removed: Array<{ type: string; id: string }> = [];
  let erasure: RepublishPayload['erasure'];
  // Loaded for erasures only: the graph's write path stays out of daemon start-up.
  const { sourceIdOf } = erase ? await import('../graph/apply-contribution.js') : { sourceIdOf: undefined };
  // Between the graph writer thread's transactions, waiting without blocking the event loop (write-turn.ts).
  await withWriteTurn(db, () =>
    db
      .transaction(() => {
        const rows: RawRow[] = [];
        for (const id of [...new Set(ids)]) {
          const found = find.all(id) as RawRow[];
          if (found.length === 0) {
            notFound.push(id);
            continue;
          }
          rows.push(...found);
          tombstoned.push(id);
          for (const row of found) removed.push({ type: row.item_type, id: row.item_id });
        }
        // Read before the tombstone blanks the url and before the content.ingest job erases the records.
        if (sourceIdOf && rows.length > 0) erasure = erasureOf(db, website.id, rows, sourceIdOf);
        for (const id of tombstoned) tombstone.run(reason, at, id);
      })
      .immediate(),
  );
  if (tombstoned.length === 0) return { tombstoned, not_found: notFound, republish_job_id: null };
  const ingestJob = services.jobs.enqueue(contentIngestJob, {
    website_id: website.id,
    raw_content_ids: [],
    removed,
    reason,
  });
  if (!(await hasPublishedNode(services, website.id, erase)))
    return { tombstoned, not_found: notFound, republish_job_id: ingestJob.id };
  const republish = requestRepublish(services, { website_id: website.id, removed, ...(erasure ? { erasure } : {}) });
  return { tombstoned, not_found: notFound, republish_job_id: republish.id };
}

/** What the purge needs to find the items in published versions: their keys, sources and record ids (hashes, no text). */
function erasureOf(
  db: Db,
  websiteId: string,
  rows: readonly RawRow[],
  sourceIdOf: (websiteId: string, url: string, canonicalUrl: string | null) => string,
): NonNullable<RepublishPayload['erasure']> {
  const s = graphStatements(db);
  const itemKeys = new Set<string>();
  const sourceIds = new Set<string>();
  const recordIds = new Set<string>();
  for (const row of rows) {
    const key = `${row.item_type}:${row.item_id}`;
    itemKeys.add(key);
    if (row.url !== '') sourceIds.add(sourceIdOf(websiteId, row.url, row.canonical_url));
    const item = s.itemRow.get(key) as { source_id: string } | undefined;
    if (item) sourceIds.add(item.source_id);
    for (const stmt of [s.itemEntityIds, s.itemRelIds, s.itemFactIds, s.itemChunkIds, s.itemQaIds]) {
      for (const r of stmt.all(key) as Array<{ id: string }>) recordIds.add(r.id);
    }
  }
  const sorted = (set: Set<string>) => [...set].sort();
  return { item_keys: sorted(itemKeys), source_ids: sorted(sourceIds), record_ids: sorted(recordIds) };
}
