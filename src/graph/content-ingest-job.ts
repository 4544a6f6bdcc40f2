import { z } from 'zod';
import type { AppServices } from '../daemon/services.js';
import type { JobHandler } from '../jobs/handlers.js';
import { loadFieldMappings, loadSiteInfo } from '../site/load-site.js';
import { processRawItems, type ProcessRawItemsResult } from './process-raw-items.js';
import { compactGraph, removeItem } from './remove-item.js';

/** Payload of a content.ingest job (src/ingest/accept.ts and delete-items.ts enqueue it). */
export const ContentIngestPayloadSchema = z.object({
  website_id: z.string().min(1),
  raw_content_ids: z.array(z.string()),
  /** Items tombstoned by DELETE /v1/ingest/items: their contributions are removed. */
  removed: z.array(z.object({ type: z.string(), id: z.string() })).optional(),
  reason: z.string().optional(),
});
export type ContentIngestPayload = z.infer<typeof ContentIngestPayloadSchema>;

export interface ContentIngestOutcome extends ProcessRawItemsResult {
  removed: number;
}

/**
 * Runs one content.ingest job: removes tombstoned items (gdpr_erasure erases them and compacts
 * the file), then extracts and merges the pending raw items. A website deleted since the job was
 * queued is a no-op. A malformed payload throws (retried, then dead-lettered).
 */
export function runContentIngestJob(payload: unknown, services: AppServices): ContentIngestOutcome | null {
  const job = ContentIngestPayloadSchema.parse(payload);
  const site = loadSiteInfo(services.controlDb, job.website_id);
  if (!site) return null;
  const db = services.graphs.get(job.website_id);
  const erase = job.reason === 'gdpr_erasure';
  let removed = 0;
  for (const item of job.removed ?? []) {
    // keepTombstone: ingestion keeps the bare (type, id) row so the item is not re-created.
    if (removeItem(db, site, `${item.type}:${item.id}`, { erase, keepTombstone: true, compact: false })) removed++;
  }
  if (erase && (job.removed?.length ?? 0) > 0) compactGraph(db);
  const now = new Date(services.now()).toISOString();
  const result = processRawItems(db, site, job.raw_content_ids, { mappings: loadFieldMappings(services.controlDb, job.website_id), now });
  if (result.failed > 0) services.logger.warn({ websiteId: site.websiteId, failed: result.failed, failures: result.failures.slice(0, 5) }, 'content.ingest: some items failed');
  if (result.warned > 0) services.logger.info({ websiteId: site.websiteId, warned: result.warned, warnings: result.warnings.slice(0, 5) }, 'content.ingest: some items were extracted with warnings (kept in item_contributions.warnings)');
  return { ...result, removed };
}

export const contentIngestHandler: JobHandler = async (job, services) => {
  runContentIngestJob(job.payload, services);
};
