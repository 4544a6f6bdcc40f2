import { z } from 'zod';
import { emitEvent } from '../../control/events/index.js';
import { defineJob } from '../../platform/job-runtime/index.js';
import { withoutFsync, type JobItemError } from '../../platform/jobs/index.js';
import { enqueueEmbeddings } from '../embeddings/index.js';
import type { ItemFailure } from './run-result.js';

let runner: Promise<typeof import('./run-content-ingest.js')> | undefined;
/**
 * Loaded on first use: the extractor (htmlparser2) stays out of daemon start-up. Kept as one
 * promise: awaiting it again takes a microtask, so a job reaches its extraction within the turn
 * of the event loop that claimed it (src/platform/job-runtime/job-worker.ts).
 */
const loadRunner = () => (runner ??= import('./run-content-ingest.js'));

/**
 * Turns accepted raw items into graph records and removes deleted ones (src/ingest/endpoints/accept.ts,
 * delete-items.ts and sweep.ts enqueue it; docs/ingest.md).
 */
export const contentIngestJob = defineJob({
  kind: 'content.ingest',
  lane: 'ingest',
  payload: z.object({
    website_id: z.string().min(1),
    raw_content_ids: z.array(z.string()),
    /** Items tombstoned by a delete: their contributions are removed. */
    removed: z.array(z.object({ type: z.string(), id: z.string() })).optional(),
    /** The delete reason; gdpr_erasure erases the items' records and compacts the graph file. */
    reason: z.string().optional(),
  }),
  handler: async (payload, { job, services }) => {
    const { runContentIngestJob } = await loadRunner();
    const outcome = await runContentIngestJob(payload, {
      ...services,
      // Recorded batch by batch: items refused before a later batch fails the attempt stay listed.
      onItemFailures: (failures) => services.jobs.addItemErrors(job.id, failures.map(jobItemErrorOf)),
    });
    if (!outcome) return; // the website was deleted since the job was queued
    // The run committed to the website's graph file, not to control.sqlite, so ingest.completed
    // is written right after it (docs/webhooks.md "Events"): counts only, never item bodies.
    const { processed, failed, skipped, removed, warned } = outcome;
    // Vectors follow in their own lane (docs/knowledge.md "Modes"); this job never waits for them.
    if (processed > 0) enqueueEmbeddings(services, payload.website_id);
    // Without an fsync: the worker's completion of the job, right after, syncs it too (one fsync per job, not two).
    withoutFsync(services.controlDb, () =>
      emitEvent(
        services.controlDb,
        {
          type: 'ingest.completed',
          website_id: payload.website_id,
          data: { job_id: job.id, processed, failed, skipped, removed, warned },
        },
        services.now(),
      ),
    );
  },
});

/** A refused item as the job's record keeps it (GET /v1/websites/:id/jobs/:jobId itemErrors). */
function jobItemErrorOf(failure: ItemFailure): JobItemError {
  // Not splitItemKey: remove-item.ts would load the graph code at daemon start-up (loadRunner says why not).
  const cut = failure.itemKey.indexOf(':');
  return {
    itemId: failure.itemKey.slice(cut + 1),
    itemType: failure.itemKey.slice(0, Math.max(cut, 0)),
    url: failure.url,
    code: failure.code,
    message: failure.error,
  };
}
