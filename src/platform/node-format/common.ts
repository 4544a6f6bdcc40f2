import { z } from 'zod';
import { MAX_URL_LENGTH, NODE_SCHEMA_VERSION, PROVENANCE_METHODS } from '../contract/index.js';

/**
 * Building blocks shared by the node file schemas (docs/contract.md#node-files). Every schema of a
 * node file embeds `schema_version`, frozen at 1.0.0; a breaking change to one file bumps only
 * that file's const.
 */
export { NODE_SCHEMA_VERSION };
export const SchemaVersionSchema = z
  .literal(NODE_SCHEMA_VERSION)
  .describe('Schema version of this record kind; consumers branch on it.');

/** `<prefix>_<hex hash>`: stable across versions; a uuid never matches (no dashes). */
export function stableIdSchema(prefix: 'entity' | 'fact' | 'rel' | 'chunk' | 'qa' | 'src') {
  return z.string().regex(new RegExp(`^${prefix}_[0-9a-f]{8,64}$`), `must be a stable id ${prefix}_<hex>`);
}
export const EntityIdSchema = stableIdSchema('entity');
export const FactIdSchema = stableIdSchema('fact');
export const RelIdSchema = stableIdSchema('rel');
export const ChunkIdSchema = stableIdSchema('chunk');
export const QaIdSchema = stableIdSchema('qa');
export const SourceIdSchema = stableIdSchema('src');
/** Any exported record id (entities, facts, relationships, chunks, Q&A, sources). */
export const RecordIdSchema = z
  .string()
  .regex(/^(entity|fact|rel|chunk|qa|src)_[0-9a-f]{8,64}$/, 'must be a stable record id');

export const LanguageSchema = z
  .string()
  .regex(
    /^[A-Za-z]{2,3}(-[A-Za-z]{4})?(-([A-Za-z]{2}|[0-9]{3}))?(-([A-Za-z0-9]{5,8}|[0-9][A-Za-z0-9]{3}))*$/,
    'must be a BCP-47 language tag',
  );
export const ConfidenceSchema = z.number().min(0).max(1);
export const ImportanceSchema = z.number().int().min(1).max(5);
export const ProvenanceSchema = z.enum(PROVENANCE_METHODS);
export const FreshnessSchema = z.enum(['stable', 'seasonal', 'frequent', 'real_time']);
export const TimestampSchema = z.iso.datetime({ offset: false, message: 'must be an RFC 3339 UTC timestamp' });
/** A date or an RFC 3339 UTC timestamp (valid_from / valid_until may be date-only). */
export const DateOrTimestampSchema = z.union([z.iso.date(), TimestampSchema]);
/** The pattern and length limit of HttpUrlSchema (the compiler's URL policy applies them too). */
export const HTTP_URL_PATTERN = /^https?:\/\/[^\s/?#]+[^\s]*$/;
export const HTTP_URL_MAX_LENGTH = MAX_URL_LENGTH;
/** An absolute http(s) URL. A pattern rather than a URL parse: it runs once per record of a million-record node. */
export const HttpUrlSchema = z
  .string()
  .max(HTTP_URL_MAX_LENGTH)
  .regex(HTTP_URL_PATTERN, 'must be an absolute http(s) URL')
  .meta({ format: 'uri' });
export const ChecksumSchema = z.string().regex(/^sha256:[0-9a-f]{64}$/, 'must be sha256:<64 lowercase hex>');
export const UlidSchema = z.string().regex(/^[0-9A-HJKMNP-TV-Z]{26}$/, 'must be a ULID');
export const VersionLabelSchema = z.string().regex(/^\d{4}-\d{2}-\d{2}\.[1-9]\d*$/, 'must be YYYY-MM-DD.N');
export const CapabilitySchema = z.enum(['cap.core', 'cap.advanced', 'cap.mcp', 'cap.webhooks', 'cap.embeddings']);
export const VerificationMethodSchema = z.enum(['dns_txt', 'plugin_signed', 'well_known', 'meta_tag', 'manual']);
export const VerificationStateSchema = z.enum(['pending', 'verified', 'failed', 'grace', 'revoked']);
/** Trust tier: the verification method while the website is verified (or in grace), else unverified. */
export const TrustTierSchema = z.enum(['dns_txt', 'plugin_signed', 'well_known', 'meta_tag', 'manual', 'unverified']);
/** A relative path of a node file: no directories, no dot-dot. */
export const NodePathSchema = z
  .string()
  .regex(/^[a-z][a-z0-9-]*(\.[A-Za-z0-9-]+)*\.(json|jsonl|txt|jsonld|xml|f32)$/, 'must be a node file name');
