import { z } from 'zod';
import { ListQuerySchema } from '../../platform/http/index.js';

/**
 * Request and response schemas of the publish routes (src/output/publish/routes.ts): the route validates
 * with them, the OpenAPI document is generated from them, and the typed client (@nodectl/cli/api)
 * takes its types from them (z.input for requests, z.output for responses).
 */

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

export const WebsiteParamsSchema = z.object({ id: z.string().describe('The website id (web_...)') });

export const PublishRequestSchema = z
  .strictObject({
    allowDrop: z
      .boolean()
      .optional()
      .describe(
        'Publish even when the record count falls more than publishMaxDrop against the live version; default false',
      ),
    dryRun: z
      .boolean()
      .optional()
      .describe('Report what would be uploaded and carried forward; write nothing; default false'),
    force: z
      .boolean()
      .optional()
      .describe("Publish a new version even when its content equals the live version's; default false"),
  })
  .optional();

const PublishedFileSchema = z.object({
  path: z.string().describe('File path inside the node, e.g. entities.en.jsonl'),
  bytes: z.number().int().describe('Size in bytes'),
  checksum: z.string().describe('sha256:<hex> of the bytes'),
  state: z
    .enum(['uploaded', 'carried'])
    .describe('uploaded: its bytes were sent; carried: the store already held them, nothing sent'),
});

const FileChangeSchema = z.object({
  path: z.string(),
  change: z.enum(['added', 'changed', 'removed', 'unchanged']).describe('Against the version that was live before'),
});

const RejectedRecordSchema = z.object({
  file: z.string().describe('The node file the record would have been written to'),
  id: z.string(),
  path: z.string().describe('Dotted path of the offending field ("" for the record as a whole)'),
  message: z.string(),
});

const RejectionsSchema = z
  .object({
    total: z.number().int(),
    counts: z.object({
      sources: z.number().int(),
      entities: z.number().int(),
      facts: z.number().int(),
      relationships: z.number().int(),
      chunks: z.number().int(),
      qa: z.number().int(),
    }),
    records: z.array(RejectedRecordSchema).describe('The first rejected records, sorted by file then id'),
  })
  .describe(
    'Graph records the compile left out because they failed their schema or the URL policy (docs/node-format.md "Rejected records")',
  );

export const PublishResultSchema = z.object({
  versionUlid: z.string().describe('node_version of the published version (the live one when alreadyLive)'),
  versionLabel: z.string().describe('YYYY-MM-DD.N, for display only'),
  files: z.array(PublishedFileSchema).describe('Every file of the version but manifest.json'),
  changes: z.array(FileChangeSchema).describe('File-level changes against previousVersion'),
  recordCount: z
    .number()
    .int()
    .describe('Knowledge records of the version (entities, facts, relationships, chunks, Q&A, sources)'),
  cdnPath: z.string().describe('{node_base_url}/{domain}'),
  publicUrl: z.string().describe('{node_base_url}/{domain}/manifest.json'),
  previousVersion: z.string().nullable().describe('The version that was live before; null when nothing was'),
  alreadyLive: z
    .boolean()
    .describe('The live version already holds this content: nothing was written ({"force": true} publishes anyway)'),
  dryRun: z.boolean(),
  bytesUploaded: z.number().int(),
  bytesCarried: z.number().int().describe('Bytes the store already held (content-addressed), not sent again'),
  rejected: RejectionsSchema,
});

/** One `progress` event of the streamed publish (Accept: text/event-stream). */
export const PublishProgressEventSchema = z
  .object({
    stage: z
      .enum(['compile', 'check', 'upload', 'patch', 'verify', 'latest', 'flip'])
      .describe('The step under way, in this order (docs/publishing.md); compile only when the daemon compiles'),
    done: z.number().int().min(0).describe('compile: passes finished; other stages: objects gone through'),
    total: z.number().int().min(0).describe('compile: passes in all; other stages: objects to go through'),
    pass: z.string().optional().describe('compile: the pass under way (sources, entity scan, facts, ...)'),
    records: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('compile: knowledge records written so far (the meaning of recordCount)'),
    file: z.string().optional().describe('The node file the stage is on, when it is on one'),
    uploaded: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('upload and patch: files of this stage whose bytes were sent so far'),
    carried: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('upload and patch: files of this stage carried forward so far (the store held their bytes)'),
  })
  .describe('Where the publish stands: the `data` of a `progress` event');

/**
 * The `data` of the stream's `error` event: the error envelope the synchronous answer would have
 * had, with that answer's HTTP status in meta.status.
 */
const PublishStreamErrorSchema = z.object({
  ok: z.literal(false),
  error: z.object({
    code: z.string().describe('One of the codes this route documents for its error statuses'),
    message: z.string(),
    details: z.record(z.string(), z.unknown()),
    retryable: z.boolean(),
  }),
  meta: z.object({
    requestId: z.string(),
    status: z.number().int().describe('The HTTP status the synchronous answer would have had'),
  }),
});

/**
 * The streamed answer, one Server-Sent Event at a time as `{event, data}` (on the wire: an
 * `event:` line and one `data:` line of JSON, then a blank line).
 */
export function publishEventStreamSchema<T extends z.ZodType>(resultEnvelope: T) {
  return z
    .discriminatedUnion('event', [
      z.object({ event: z.literal('progress'), data: PublishProgressEventSchema }),
      z.object({
        event: z.literal('result'),
        data: resultEnvelope.describe('Exactly the answer without the stream (200)'),
      }),
      z.object({ event: z.literal('error'), data: PublishStreamErrorSchema }),
    ])
    .describe(
      'Server-Sent Events, each shown here as {event, data}: `progress` events in order, then one `result` (the envelope of the 200 answer) or one `error` (the error envelope, with the status it would have had in meta.status); the stream then ends. A line starting with `:` is a keep-alive comment.',
    );
}

export const TakedownResultSchema = z.object({
  tombstoned: z.literal(true).describe('The node is no longer served; its alias answers 410 node.gone'),
});

export const VersionsQuerySchema = ListQuerySchema;

export const PublishedVersionSchema = z.object({
  node_version: z.string().describe('The version ULID; newer versions sort after older ones'),
  node_version_label: z
    .string()
    .nullable()
    .describe('YYYY-MM-DD.N, for display only; null when the store does not know it'),
  generated_at: z.string().describe('Build time (RFC 3339)'),
  live: z.boolean().describe('latest/ serves this version'),
  purged: z.boolean().describe('A gdpr_erasure deleted files of this version: it cannot be served again'),
});

export const RollbackRequestSchema = z.strictObject({
  version: z
    .string({ error: 'is required: a node_version from GET /v1/websites/:id/versions' })
    .regex(ULID, 'must be a node_version (a 26-character ULID) from GET /v1/websites/:id/versions')
    .describe('The published version to serve again'),
});

export const RollbackResultSchema = z.object({
  versionUlid: z.string().describe('The version latest/ now serves'),
  versionLabel: z.string(),
  previousVersion: z.string().nullable().describe('The version it replaced; null when nothing was live'),
  files: z.array(PublishedFileSchema),
  changes: z.array(FileChangeSchema).describe('File-level changes against previousVersion'),
});

export type PublishRequest = z.input<typeof PublishRequestSchema>;
export type PublishProgressEvent = z.output<typeof PublishProgressEventSchema>;
export type PublishResultView = z.output<typeof PublishResultSchema>;
export type PublishedVersionView = z.output<typeof PublishedVersionSchema>;
export type RollbackRequest = z.input<typeof RollbackRequestSchema>;
export type RollbackResultView = z.output<typeof RollbackResultSchema>;
