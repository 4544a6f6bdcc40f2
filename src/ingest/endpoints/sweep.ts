import { existsSync, readdirSync } from 'node:fs';
import type { AppServices } from '../../platform/app/index.js';
import { graphInboxPath, isGraphDbFileName } from '../../platform/storage/index.js';
import { contentIngestJob, inboxRawContentIds, pendingRawContentIds } from '../graph/index.js';

/**
 * Re-enqueues pending raw items, and items still in the inbox, that no queued or running
 * content.ingest job covers: the safety net for an enqueue that failed after the rows were
 * committed (or a job that was lost).
 * Runs at daemon start and periodically; returns the number of items re-enqueued.
 */
export function sweepPendingRawItems(
  services: Pick<AppServices, 'controlDb' | 'graphs' | 'jobs' | 'layout' | 'now'>,
  options: { olderThanMs?: number } = {},
): number {
  const covered = new Set<string>();
  const jobs = services.controlDb
    .prepare(`SELECT payload FROM jobs WHERE kind = ? AND state IN ('queued','running')`)
    .all(contentIngestJob.kind) as Array<{ payload: string }>;
  for (const job of jobs) {
    const ids = (JSON.parse(job.payload) as { raw_content_ids?: unknown }).raw_content_ids;
    if (Array.isArray(ids)) for (const id of ids) covered.add(String(id));
  }
  const cutoff = new Date(services.now() - (options.olderThanMs ?? 0)).toISOString();
  let files: string[];
  try {
    files = readdirSync(services.layout.graphsDir).filter(isGraphDbFileName).sort();
  } catch {
    return 0;
  }
  let total = 0;
  for (const file of files) {
    const websiteId = file.slice(0, -'.sqlite'.length);
    if (!services.controlDb.prepare('SELECT 1 FROM websites WHERE id = ?').get(websiteId)) continue;
    const inboxed = existsSync(graphInboxPath(services.layout, websiteId))
      ? inboxRawContentIds(services.graphs.inbox(websiteId), cutoff)
      : [];
    const missing = [...pendingRawContentIds(services.graphs.get(websiteId), cutoff), ...inboxed].filter(
      (id) => !covered.has(id),
    );
    for (let i = 0; i < missing.length; i += 500) {
      services.jobs.enqueue(contentIngestJob, { website_id: websiteId, raw_content_ids: missing.slice(i, i + 500) });
    }
    total += missing.length;
  }
  return total;
}
