import { z } from 'zod';
import { ListQuerySchema } from '../../platform/http/index.js';
import { JOB_STATES } from '../../platform/jobs/index.js';

/**
 * Request and response schemas of the jobs routes (src/control/websites/job-routes.ts), also the types of the
 * typed client (@nodectl/cli/api).
 */

export const WebsiteJobsParamsSchema = z.object({ id: z.string().describe('The website id (web_...)') });

export const WebsiteJobParamsSchema = WebsiteJobsParamsSchema.extend({
  jobId: z.string().describe('The job id (job_...)'),
});

export const JobsQuerySchema = ListQuerySchema.extend({
  state: z
    .enum(JOB_STATES, { error: `must be one of ${JOB_STATES.join(', ')}` })
    .optional()
    .describe('Only jobs in this state'),
  kind: z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(100, 'must be at most 100 characters')
    .optional()
    .describe('Only jobs of this kind, e.g. content.ingest'),
});

export const JobSchema = z.object({
  id: z.string(),
  kind: z.string().describe('content.ingest, node.republish or webhook.deliver: the kinds that act on one website'),
  state: z.enum(JOB_STATES).describe('queued (waiting or retrying), running, succeeded, or dead (failed for good)'),
  attempts: z.number().int().describe('Attempts so far'),
  maxAttempts: z.number().int().describe('Attempts before the job is dead-lettered'),
  runAt: z.string().describe('When it runs (or ran) next, RFC 3339'),
  lastError: z.string().nullable().describe('Why the last attempt failed; null after a success'),
  itemErrorCount: z
    .number()
    .int()
    .describe(
      'Items the job refused (content.ingest: each marked failed and left out of the graph), across its attempts; GET .../jobs/{jobId} lists them',
    ),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const JobItemErrorSchema = z.object({
  itemId: z.string().describe('The item id as the connector sent it'),
  itemType: z.string().describe('The item type (page, post, product, ...)'),
  url: z.string().nullable().describe('The item url as pushed; null when unknown'),
  code: z
    .string()
    .describe(
      'Stable reason: item.body_missing, item.body_invalid, item.extraction_failed, item.key_mismatch or item.merge_failed (docs/ingest.md "Item errors")',
    ),
  message: z.string().describe('What went wrong and what to fix'),
});

export const JobDetailSchema = JobSchema.extend({
  itemErrors: z
    .array(JobItemErrorSchema)
    .describe('The first items the job refused (at most 100, in the order refused); itemErrorCount counts them all'),
});

export type JobsQuery = z.input<typeof JobsQuerySchema>;
export type JobView = z.output<typeof JobSchema>;
export type JobDetailView = z.output<typeof JobDetailSchema>;
