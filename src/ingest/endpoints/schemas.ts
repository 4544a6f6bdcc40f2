import { z } from 'zod';
import { FieldMappingSchema, IngestItemSchema } from '../../platform/contract/ingest-item.js';
import { MAX_BATCH_ITEMS } from '../../platform/contract/ingest-limits.js';
import { BatchRequestSchema, ItemRequestSchema } from '../../platform/contract/ingest-requests.js';
import { NONCE_TTL_MS, TIMESTAMP_WINDOW_SECONDS } from './verify.js';

/**
 * What the signed ingest routes take and answer (docs/contract.md#ingest-endpoints), for the
 * OpenAPI document and the typed client. The routes check the signature before anything else
 * (verify.ts), so they declare these wrapped in validatedInHandler: the handler validates, after
 * the signature, with the request schemas of src/platform/contract/ingest-requests.ts.
 */

/** The headers of every ingest request beyond Authorization (docs/contract.md#connector-signing). */
export const IngestHeadersSchema = z.object({
  'X-Signature': z
    .string()
    .describe(
      'Lowercase hex HMAC-SHA256 of the canonical request with the HKDF key of the connector secret and website_id (docs/ingest.md "Signing")',
    ),
  'X-Timestamp': z
    .string()
    .regex(/^[0-9]{1,12}$/)
    .describe(`Unix seconds when the request was signed; at most ${TIMESTAMP_WINDOW_SECONDS} s from the server clock`),
  'X-Nonce': z
    .string()
    .min(1)
    .max(200)
    .describe(`A fresh unique value per request, retries included; refused when seen within ${NONCE_TTL_MS / 1000} s`),
  'X-Body-Sha256': z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .describe('Lowercase hex SHA-256 of the exact body bytes'),
  'Idempotency-Key': z
    .string()
    .min(1)
    .max(255)
    .describe(
      'One per logical operation, reused on its retries: the first answer is replayed for 24 h (header Idempotent-Replayed: true)',
    ),
  'X-Site-Domain': z
    .string()
    .optional()
    .describe("The website's domain or a verified alias; when sent, another is 403 auth.scope_violation"),
  'X-Connector-Type': z
    .string()
    .optional()
    .describe('A free identifier of the connector kind (the reference client sends custom)'),
  'X-Connector-Version': z.string().optional().describe("A free identifier of the connector's version"),
});

/** POST /v1/ingest/batch as documented: each item is checked on its own, an invalid one is an error result (or, with partial false, 422 ingest.batch_rejected). */
export const BatchBodySchema = BatchRequestSchema.extend({
  partial: BatchRequestSchema.shape.partial.describe(
    'true (default): store the valid items and answer an error result for each invalid one; false: one invalid item refuses the whole batch',
  ),
  items: z
    .array(IngestItemSchema)
    .min(1)
    .max(MAX_BATCH_ITEMS)
    .describe(`1 to ${MAX_BATCH_ITEMS} items; more is 413 ingest.batch_too_large`),
});

/** POST /v1/ingest/item as documented: an invalid item is an error result, not a refused request. */
export const ItemBodySchema = ItemRequestSchema.extend({ item: IngestItemSchema });

/** One item's outcome (src/platform/contract/ingest-results.ts ItemResult). */
export const ItemResultSchema = z.object({
  id: z.string().nullable().describe("The item's id as sent (null when it had none)"),
  status: z.enum(['accepted', 'skipped', 'error']),
  checksum: z.string().nullable(),
  raw_content_id: z.string().optional().describe('Accepted: the stored raw item'),
  job_id: z
    .string()
    .nullable()
    .optional()
    .describe(
      'Accepted: the content.ingest job that processes it (null when it could not be queued yet; a sweep queues it)',
    ),
  reason: z.enum(['unchanged_checksum', 'tombstoned', 'idempotent_replay']).optional().describe('Skipped: why'),
  error: z
    .object({ code: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()).optional() })
    .optional()
    .describe(
      'Error: validation.failed naming the fields, or entitlement.limit_reached once the monthly item quota is used up',
    ),
});

/** POST /v1/ingest/batch (BatchResult). */
export const BatchResultSchema = z.object({
  website_id: z.string(),
  received: z.number().int(),
  accepted: z.number().int(),
  skipped: z.number().int(),
  errored: z.number().int(),
  results: z.array(ItemResultSchema).describe('One outcome per item, in request order'),
});

/** POST /v1/ingest/delete (DeleteResult). */
export const DeleteResultSchema = z.object({
  tombstoned: z.array(z.string()).describe('Ids now tombstoned (every item type sharing the id)'),
  not_found: z.array(z.string()).describe('Ids no item has'),
  republish_job_id: z
    .string()
    .nullable()
    .describe(
      'The node.republish job when something is published, else the content.ingest job; null when nothing was deleted',
    ),
});

/** POST /v1/ingest/heartbeat (HeartbeatResult, docs/contract.md#heartbeat). */
export const HeartbeatResultSchema = z.object({
  next_action: z
    .enum(['continue', 'pause', 'backfill'])
    .describe(
      'pause: the monthly item quota is used up; backfill: a field mapping was added since the previous heartbeat',
    ),
  server_time: z.string().describe('The server clock (ISO-8601)'),
  server_time_unix: z.number().int().describe('The server clock in unix seconds, to correct X-Timestamp'),
});

/** POST /v1/ingest/schema (SchemaResult, docs/contract.md#schema-mapping). */
export const SchemaResultSchema = z.object({
  website_id: z.string(),
  mappings: z.array(FieldMappingSchema).describe('Every field mapping of the website, by source_path'),
  mappings_version: z.string().describe('Changes exactly when the mappings change'),
});
