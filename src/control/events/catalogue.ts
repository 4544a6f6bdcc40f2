import { z } from 'zod';

/**
 * The events a webhook subscription can receive (docs/webhooks.md "Event catalogue"), each with
 * the schema of its `data`. Internal job and scheduler activity is not an event. Every schema
 * keeps unknown keys (a later field added to an event is not a breaking change) but requires
 * the fields the catalogue documents, so an emitter cannot forget one.
 */
export const EVENT_DATA_SCHEMAS = {
  /** A new version became live (a publish, or a rollback to a stored version). */
  'node.published': z.looseObject({
    node_version: z.string(),
    node_version_label: z.string().nullable(),
    previous_version: z.string().nullable(),
    public_url: z.string().nullable(),
    rollback: z.boolean(),
  }),
  /** The node stopped being served (its files answer 410). */
  'node.taken_down': z.looseObject({
    previous_version: z.string().nullable(),
    removed_files: z.number().int().nonnegative(),
  }),
  /** One content.ingest job run: counts only, never item bodies. */
  'ingest.completed': z.looseObject({
    job_id: z.string(),
    processed: z.number().int().nonnegative(),
    failed: z.number().int().nonnegative(),
    skipped: z.number().int().nonnegative(),
    removed: z.number().int().nonnegative(),
    warned: z.number().int().nonnegative(),
  }),
  /** A domain of the website changed verification state. */
  'verification.changed': z.looseObject({
    domain: z.string(),
    state: z.string(),
    previous_state: z.string().nullable(),
  }),
  /** A connector sent no heartbeat for 15 minutes (once per silence: the next heartbeat clears it). */
  'connector.stale': z.looseObject({
    connector_id: z.string(),
    name: z.string(),
    last_heartbeat_at: z.string(),
    stale_after_ms: z.number().int().positive(),
  }),
  /** The website moved to another organization. */
  'website.transferred': z.looseObject({ from_organization_id: z.string(), to_organization_id: z.string() }),
} as const;

export type EventType = keyof typeof EVENT_DATA_SCHEMAS;
export const EVENT_TYPES = Object.keys(EVENT_DATA_SCHEMAS).sort() as EventType[];
export type EventData<T extends EventType> = z.input<(typeof EVENT_DATA_SCHEMAS)[T]>;

/** What a change hands to emitEvent: the type, the website it happened to, and the type's data. */
export type EventInput = { [T in EventType]: { type: T; website_id: string; data: EventData<T> } }[EventType];

/** The payload a receiver gets (docs/contract.md#webhooks): `{id, type, created_at, website_id, data}`. */
export interface EventPayload {
  id: string;
  type: EventType;
  created_at: string;
  website_id: string;
  data: Record<string, unknown>;
}

export const EventTypeSchema = z.enum(EVENT_TYPES as [EventType, ...EventType[]], {
  error: `must be one of ${EVENT_TYPES.join(', ')}`,
});
