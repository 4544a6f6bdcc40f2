import type { Logger } from '../../platform/log/index.js';
import type { GraphDbPool, Db } from '../../platform/storage/index.js';
import { loadFieldMappings, loadWebsiteInfo } from '../../control/records/index.js';
import { sharedExtractionPool, type ExtractionPool } from './extraction-pool.js';
import { sharedGraphWriter, type GraphWriter } from './graph-writer.js';
import { withWriteTurn } from './write-turn.js';
import { processRawItems, processRawItemsConcurrently, type ProcessRawItemsResult } from './process-raw-items.js';
import { compactGraph, removeItem } from './remove-item.js';
import { compactInbox, forgetMovedInboxRows, moveFromInbox } from './inbox.js';

/**
 * What one content.ingest run works on: the job's payload,
 * parsed by the worker (src/ingest/graph/content-ingest-job.ts).
 */
export interface ContentIngestInput {
  website_id: string;
  raw_content_ids: readonly string[];
  /** Items tombstoned by a delete: their contributions are removed. */
  removed?: ReadonlyArray<{ type: string; id: string }>;
  reason?: string;
}

/** What a content.ingest run uses: the control database, the website graphs, the clock and a logger. */
export interface ContentIngestDeps {
  controlDb: Db;
  graphs: Pick<GraphDbPool, 'get' | 'inbox'>;
  now: () => number;
  logger: Logger;
  /**
   * Worker threads for extraction; default the process's shared pool
   * (none when running from the sources: extraction in this thread).
   */
  extraction?: ExtractionPool | null;
  /**
   * The thread that writes the graph files with extraction in workers;
   * default the process's (none from the sources: this thread writes).
   */
  writer?: GraphWriter | null;
  /** Called with the items each committed batch refused (none: not called), in batch order. */
  onItemFailures?: (failures: ProcessRawItemsResult['failures']) => void;
}

export interface ContentIngestOutcome extends ProcessRawItemsResult {
  removed: number;
}

/**
 * Runs one content.ingest job: removes tombstoned items (gdpr_erasure erases them and compacts
 * the file), then extracts and merges its raw items, extracting in worker threads and writing in
 * the graph writer thread (processRawItemsConcurrently): each batch's write moves its rows from
 * the inbox into the graph (src/ingest/graph/inbox.ts), and once the graph holds them on disk the
 * job deletes them from the inbox. Without workers (from the sources) they are moved first. A
 * website deleted since the job was queued is a no-op.
 */
export async function runContentIngestJob(
  job: ContentIngestInput,
  services: ContentIngestDeps,
): Promise<ContentIngestOutcome | null> {
  const site = loadWebsiteInfo(services.controlDb, job.website_id);
  if (!site) return null;
  const db = services.graphs.get(job.website_id);
  const erase = job.reason === 'gdpr_erasure';
  let removed = 0;
  if ((job.removed?.length ?? 0) > 0) {
    // Between the writer thread's transactions, as the ingest requests' writes (write-turn.ts).
    removed = await withWriteTurn(db, () => {
      let count = 0;
      for (const item of job.removed ?? []) {
        // keepTombstone: ingestion keeps the bare (type, id) row so the item is not re-created.
        if (removeItem(db, site, `${item.type}:${item.id}`, { erase, keepTombstone: true, compact: false })) count++;
      }
      if (erase) compactGraph(db);
      return count;
    });
    // The erased items' versions left the inbox when the delete moved them into the graph.
    if (erase) compactInbox(services.graphs.inbox(job.website_id));
  }
  const inbox = services.graphs.inbox(job.website_id);
  const pool = services.extraction === undefined ? sharedExtractionPool() : services.extraction;
  const writer = (services.writer === undefined ? sharedGraphWriter() : services.writer) ?? undefined;
  // With extraction in workers on a graph file, each batch's write moves its rows from the inbox
  // (no write turn of its own); otherwise they are moved first.
  const movedByBatches = Boolean(pool) && !db.memory && db.name !== '';
  if (job.raw_content_ids.length > 0 && !movedByBatches)
    await moveFromInbox(db, inbox, { rawContentIds: job.raw_content_ids });
  const now = new Date(services.now()).toISOString();
  const onItemFailures = services.onItemFailures;
  const options = {
    mappings: loadFieldMappings(services.controlDb, job.website_id),
    now,
    onCommitted: onItemFailures
      ? (part: ProcessRawItemsResult) => {
          if (part.failures.length > 0) onItemFailures(part.failures);
        }
      : undefined,
  };
  const result = pool
    ? await processRawItemsConcurrently(db, site, job.raw_content_ids, {
        ...options,
        pool,
        writer,
        ...(movedByBatches ? { inbox } : {}),
      })
    : processRawItems(db, site, job.raw_content_ids, options);
  if (movedByBatches) await forgetMovedInboxRows(db, inbox, job.raw_content_ids);
  if (result.failed > 0)
    services.logger.warn(
      { websiteId: site.websiteId, failed: result.failed, failures: result.failures.slice(0, 5) },
      'content.ingest: some items failed',
    );
  if (result.warned > 0)
    services.logger.info(
      { websiteId: site.websiteId, warned: result.warned, warnings: result.warnings.slice(0, 5) },
      'content.ingest: some items were extracted with warnings (kept in item_contributions.warnings)',
    );
  return { ...result, removed };
}
