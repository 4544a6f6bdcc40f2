import type { AppServices, RepublishRequest } from '../../platform/app/index.js';
import {
  graphStatements,
  moveFromInbox,
  withWriteTurn,
  contentIngestJob,
  tombstoneItems,
  type TombstonedRow,
} from '../graph/index.js';
import type { Db } from '../../platform/storage/index.js';
import type { IngestWebsite } from './website-context.js';
import type { DeleteReason, DeleteResult } from '../../platform/contract/index.js';
import { appendJournal } from '../handover/index.js';
import { tenureOf } from './tenure.js';

/**
 * Tombstones items by connector id (tombstoneItems: every type sharing the id; for gdpr_erasure
 * the url and checksum go with the body, so only the bare (type, id) tombstone remains). A
 * content.ingest job removes what was derived from them; when the website has something
 * published, a coalesced node.republish (after it) takes them off the live node, and for gdpr_erasure purges the earlier versions that held them
 * (docs/ingest.md "Deleting items").
 */
export async function deleteItems(
  services: Pick<AppServices, 'controlDb' | 'graphs' | 'jobs' | 'nodes' | 'now' | 'ownership'>,
  website: IngestWebsite,
  ids: readonly string[],
  reason: DeleteReason,
): Promise<DeleteResult> {
  const erase = reason === 'gdpr_erasure';
  const db = services.graphs.get(website.id);
  const at = new Date(services.now()).toISOString();
  let erasure: RepublishRequest['erasure'];
  // Loaded for erasures only: the graph's write path stays out of daemon start-up.
  const { sourceIdOf } = erase ? await import('../graph/index.js') : { sourceIdOf: undefined };
  const tenure = tenureOf(services, website.id);
  // Versions of these items still in the inbox go into raw_items first, to be tombstoned with the rest.
  await moveFromInbox(db, services.graphs.inbox(website.id), { itemIds: ids });
  // Between the graph writer thread's transactions, waiting without blocking the event loop (write-turn.ts).
  const { tombstoned, notFound, removed } = await withWriteTurn(db, () =>
    db
      .transaction(() => {
        const outcome = tombstoneItems(
          db,
          ids,
          reason,
          at,
          // Read before the tombstone blanks the url and before the content.ingest job erases the records.
          sourceIdOf && ((rows) => (erasure = erasureOf(db, website.id, rows, sourceIdOf))),
        );
        // With several daemons, the delete is journaled for the next writer of the graph, in its transaction.
        if (tenure !== undefined && outcome.tombstoned.length > 0)
          appendJournal(services.controlDb, {
            websiteId: website.id,
            token: tenure,
            nowMs: services.now(),
            entry: { kind: 'delete', ids: outcome.tombstoned, reason, at },
          });
        return outcome;
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
  if (!(await services.nodes.hasPublishedNode(website.id, erase)))
    return { tombstoned, not_found: notFound, republish_job_id: ingestJob.id };
  const republish = services.nodes.requestRepublish({
    website_id: website.id,
    removed,
    ...(erasure ? { erasure } : {}),
  });
  return { tombstoned, not_found: notFound, republish_job_id: republish.id };
}

/**
 * What the purge needs to find the items in published versions: their keys, sources and record ids (hashes, no text).
 */
function erasureOf(
  db: Db,
  websiteId: string,
  rows: readonly TombstonedRow[],
  sourceIdOf: (websiteId: string, url: string, canonicalUrl: string | null) => string,
): NonNullable<RepublishRequest['erasure']> {
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
