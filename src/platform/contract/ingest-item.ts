import { z } from 'zod';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from './json-depth.js';
import { PROVENANCE_METHODS } from './provenance.js';

export const SOURCE_TYPES = [
  'page',
  'post',
  'product',
  'category',
  'collection',
  'faq',
  'review',
  'event',
  'location',
  'profile',
  'doc',
  'media',
  'service',
  'custom',
] as const;
export const SourceTypeSchema = z.enum(SOURCE_TYPES);

/**
 * A client's id or name: never with NUL (U+0000), which SQLite text, C strings, file names and
 * log lines cut or split at, so two ids could read as one (issue 36).
 */
export function clientString(min: number, max?: number): z.ZodType<string> {
  const bounded = z.string().min(min, min === 1 ? 'must not be empty' : `must be at least ${min} characters`);
  return (max === undefined ? bounded : bounded.max(max, `must be at most ${max} characters`)).refine(
    (value) => !value.includes('\u0000'),
    'must not contain NUL (\\u0000)',
  );
}
export type SourceType = z.infer<typeof SourceTypeSchema>;

/** BCP-47 language tag (RFC 5646 shape: language, optional script, region, variants). */
export const LanguageTagSchema = z
  .string()
  .regex(
    /^[A-Za-z]{2,3}(-[A-Za-z]{4})?(-([A-Za-z]{2}|[0-9]{3}))?(-([A-Za-z0-9]{5,8}|[0-9][A-Za-z0-9]{3}))*$/,
    'must be a BCP-47 language tag such as "en" or "de-CH"',
  );

export const ChecksumSchema = z
  .string()
  .regex(/^sha256:[0-9a-f]{64}$/, 'must be "sha256:" followed by 64 lowercase hex characters');

/** Longest URL a node record can hold once encoded (node-format's HTTP_URL_MAX_LENGTH reads it). */
export const MAX_URL_LENGTH = 4096;

/**
 * An absolute http(s) URL whose encoded form (what the extractor writes into records) fits
 * MAX_URL_LENGTH: a longer one would be accepted here and then fail its item in extraction.
 */
const HttpUrlSchema = z
  .string()
  .max(MAX_URL_LENGTH)
  .superRefine((value, ctx) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be an absolute http(s) URL' });
      return;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      ctx.addIssue({ code: 'custom', message: 'must be an absolute http(s) URL' });
    else if (url.href.length > MAX_URL_LENGTH)
      ctx.addIssue({
        code: 'custom',
        message: `is ${url.href.length} characters once percent-encoded; the limit is ${MAX_URL_LENGTH}`,
      });
  });

/** A JSON object nesting at most MAX_JSON_DEPTH levels (json-depth.ts says why). */
const BoundedJsonObjectSchema = z
  .record(z.string(), z.unknown())
  .refine(
    (value) => !exceedsJsonDepth(value, MAX_JSON_DEPTH),
    `must nest at most ${MAX_JSON_DEPTH} levels of objects and arrays; flatten it`,
  );

export const Rfc3339UtcSchema = z.iso.datetime({
  offset: false,
  message: 'must be an RFC 3339 UTC timestamp such as 2026-01-31T12:00:00Z',
});

/** One content item as a connector sends it (docs/contract.md#ingest-item). Strict: unknown fields are rejected. */
export const IngestItemSchema = z
  .strictObject({
    type: SourceTypeSchema,
    id: clientString(1, 256),
    url: HttpUrlSchema,
    canonical_url: HttpUrlSchema.optional(),
    title: z.string().max(1024, 'must be at most 1024 characters').optional(),
    html: z.string().optional(),
    text: z.string().optional(),
    json: BoundedJsonObjectSchema.optional(),
    language: LanguageTagSchema.optional(),
    checksum: ChecksumSchema,
    updated_at: Rfc3339UtcSchema.optional(),
    attributes: BoundedJsonObjectSchema.optional(),
  })
  .refine((item) => item.html !== undefined || item.text !== undefined || item.json !== undefined, {
    message: 'at least one of html, text or json must be present',
    path: ['html'],
  });

export type IngestItem = z.infer<typeof IngestItemSchema>;

export const FIELD_MAPPING_TARGETS = ['title', 'text', 'language', 'canonical_url', 'updated_at', 'attribute'] as const;

export const FieldMappingSchema = z
  .strictObject({
    source_path: clientString(1, 512),
    target: z.enum(FIELD_MAPPING_TARGETS),
    attribute_name: clientString(1, 128).optional(),
    provenance_method: z.enum(PROVENANCE_METHODS),
  })
  .refine((m) => m.target !== 'attribute' || m.attribute_name !== undefined, {
    message: 'attribute_name is required when target is attribute',
    path: ['attribute_name'],
  })
  .refine((m) => m.provenance_method !== 'llm_inferred', {
    message: 'llm_inferred mappings are not accepted: ingestion is deterministic',
    path: ['provenance_method'],
  });

export type FieldMapping = z.infer<typeof FieldMappingSchema>;
