import { z } from 'zod';
import { defineJob } from '../define.js';

/**
 * Turns accepted raw items into graph records and removes deleted ones (src/ingest/accept.ts,
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
  handler: async (payload, { services }) => {
    // Loaded on first use: the extractor (htmlparser2, css-select) stays out of daemon start-up.
    const { runContentIngestJob } = await import('../../graph/content-ingest-job.js');
    runContentIngestJob(payload, services);
  },
});
