import { z } from 'zod';
import { clientString, FieldMappingSchema } from './ingest-item.js';
import { MAX_BATCH_ITEMS } from './ingest-limits.js';

/**
 * Request bodies of /v1/ingest/* (docs/contract.md#ingest-endpoints): the daemon validates with
 * them and the reference client derives its input types from them.
 */

/** The batch envelope; items are validated one by one so each gets its own outcome. */
export const BatchRequestSchema = z.strictObject({
  website_id: clientString(1),
  partial: z.boolean().default(true),
  items: z.array(z.unknown()).min(1, `must hold 1 to ${MAX_BATCH_ITEMS} items`),
});

export const ItemRequestSchema = z.strictObject({
  website_id: clientString(1),
  item: z.unknown(),
});

export const DELETE_REASONS = ['source_deleted', 'gdpr_erasure', 'connector_resync', 'takedown'] as const;
export type DeleteReason = (typeof DELETE_REASONS)[number];

export const DeleteRequestSchema = z.strictObject({
  website_id: clientString(1),
  ids: z
    .array(clientString(1, 256))
    .min(1, 'must list at least one id')
    .max(MAX_BATCH_ITEMS, `must list at most ${MAX_BATCH_ITEMS} ids`),
  reason: z.enum(DELETE_REASONS).default('source_deleted'),
});

export const CONNECTOR_STATES = ['idle', 'syncing', 'backfilling', 'paused', 'error'] as const;

export const HeartbeatRequestSchema = z.strictObject({
  website_id: clientString(1),
  cursor: z.string().max(4096).nullable().optional(),
  connector_state: z.enum(CONNECTOR_STATES),
  stats: z
    .strictObject({
      items_seen: z.number().int().min(0).optional(),
      items_pending: z.number().int().min(0).optional(),
      last_error: z.string().max(4096).nullable().optional(),
    })
    .optional(),
  /**
   * The website's verification token, sent by a plugin connector to prove ownership (method plugin; docs/websites.md).
   */
  verification_token: z.string().min(1).max(200).optional(),
});

/** A heartbeat as a connector fills it in (the client adds website_id). */
export type HeartbeatInput = Omit<z.input<typeof HeartbeatRequestSchema>, 'website_id'>;

export const SchemaRequestSchema = z.strictObject({
  website_id: clientString(1),
  mappings: z.array(FieldMappingSchema).max(1000),
});
