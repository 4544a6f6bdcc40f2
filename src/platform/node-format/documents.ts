import { z } from 'zod';
import {
  CapabilitySchema,
  ChecksumSchema,
  ChunkIdSchema,
  LanguageSchema,
  NodePathSchema,
  SchemaVersionSchema,
  TimestampSchema,
  TrustTierSchema,
  UlidSchema,
  VerificationMethodSchema,
  VerificationStateSchema,
  VersionLabelSchema,
} from './common.js';

export const ManifestFileSchema = z.strictObject({
  path: NodePathSchema,
  content_type: z.string().min(1),
  checksum: ChecksumSchema,
  bytes: z.number().int().min(0),
  immutable: z.boolean().describe('true for .jsonl, schema.jsonld and openapi.json (served from versions/{ulid}/)'),
  records: z.number().int().min(0).optional().describe('line count of a .jsonl file'),
  language: LanguageSchema.optional().describe('for per-language files'),
  produced_by: z.string().min(1).optional().describe('the exporter that wrote the file'),
});

export const ManifestSchema = z
  .strictObject({
    schema_version: SchemaVersionSchema,
    node_version: UlidSchema,
    node_version_label: VersionLabelSchema.optional(),
    brand: z.string().min(1),
    domain: z.string().min(1),
    website_id: z.string().min(1),
    generated_at: TimestampSchema,
    capabilities: z.array(CapabilitySchema),
    languages: z.array(LanguageSchema).min(1),
    default_language: LanguageSchema,
    trust_tier: TrustTierSchema.optional(),
    files: z.array(ManifestFileSchema),
  })
  .meta({ title: 'Node manifest (manifest.json)' });

export const AiJsonSchema = z
  .strictObject({
    schema_version: SchemaVersionSchema,
    brand: z.string().min(1),
    website_id: z.string().min(1),
    entry: z.literal('manifest.json'),
    license: z.string().min(1),
    description: z.string().min(1).optional(),
    languages: z.array(LanguageSchema).optional(),
    contact: z.string().min(1).optional(),
    refresh_hint_seconds: z.number().int().min(60).optional(),
    consumes: z.array(NodePathSchema).optional().describe('node files in the order a consumer should read them'),
  })
  .meta({ title: 'AI entry point (ai.json)' });

export const VersionEntrySchema = z.strictObject({
  node_version: UlidSchema,
  node_version_label: VersionLabelSchema.optional(),
  generated_at: TimestampSchema,
  purged: z
    .literal(true)
    .optional()
    .describe('files of this version were deleted by a gdpr_erasure (they answer 410 node.gone); absent otherwise'),
});

export const VersionsSchema = z
  .strictObject({
    schema_version: SchemaVersionSchema,
    current: VersionEntrySchema,
    previous: UlidSchema.optional().describe('node_version of the version this one replaces'),
    history: z.array(VersionEntrySchema).describe('earlier versions known to the compiler, newest first (at most 100)'),
  })
  .meta({ title: 'Versions (versions.json)' });

const McpToolSchema = z.strictObject({
  name: z.string().min(1),
  description: z.string().min(1),
  input_schema: z.record(z.string(), z.unknown()),
});

export const McpManifestSchema = z
  .strictObject({
    schema_version: SchemaVersionSchema,
    name: z.string().min(1),
    description: z.string().min(1),
    website_id: z.string().min(1),
    available: z.boolean().describe('true when the plan carries cap.mcp'),
    requires_capability: z.literal('cap.mcp'),
    transport: z.literal('stdio'),
    command: z.array(z.string().min(1)).min(1).describe('how to start the server'),
    tools: z.array(McpToolSchema),
  })
  .meta({ title: 'MCP manifest (mcp.json)' });

export const TrustSchema = z
  .strictObject({
    schema_version: SchemaVersionSchema,
    verification_method: VerificationMethodSchema.nullable(),
    trust_tier: TrustTierSchema,
    verification_state: VerificationStateSchema,
    trust_score: z.number().min(0).max(1),
    last_checked_at: TimestampSchema.optional(),
    failure_count: z.number().int().min(0).optional(),
  })
  .meta({ title: 'Trust (trust.json, cap.advanced)' });

export const OpenApiSchema = z
  .looseObject({
    openapi: z.string().regex(/^3\.1\.\d+$/, 'must be 3.1.x'),
    info: z.looseObject({
      title: z.string().min(1),
      version: z.string().min(1),
      'x-service-node-version': VersionLabelSchema.optional(),
    }),
    paths: z.record(z.string(), z.unknown()),
  })
  .meta({ title: 'OpenAPI wrapper constraints (openapi.json, cap.advanced)' });

/** The vector file of a node whose embeddings-manifest.json is computed (docs/node-format.md "Vectors"). */
export const VECTOR_FILE = 'embeddings.f32';

export const EmbeddingsManifestSchema = z
  .strictObject({
    schema_version: SchemaVersionSchema,
    status: z
      .enum(['not_computed', 'computed'])
      .describe('not_computed: no vectors are stored for this version; computed: vector_file holds them'),
    model: z
      .string()
      .min(1)
      .nullable()
      .describe('the embeddings model the vectors come from (embed queries with it); null when not_computed'),
    dimensions: z.number().int().min(1).nullable().describe('floats per vector; null when not_computed'),
    metric: z
      .literal('cosine')
      .optional()
      .describe('computed only: vectors compare by cosine similarity (they are not normalized)'),
    vector_file: z
      .strictObject({
        path: NodePathSchema,
        format: z.literal('float32-le').describe('little-endian IEEE 754 float32, `dimensions` per row, no header'),
        rows: z.number().int().min(1),
      })
      .optional()
      .describe('computed only: the node file holding the vectors, one row per listed chunk'),
    chunk_files: z.array(
      z.strictObject({ path: NodePathSchema, language: LanguageSchema, records: z.number().int().min(0) }),
    ),
    vectors: z
      .array(z.strictObject({ chunk_id: ChunkIdSchema, row: z.number().int().min(0) }))
      .describe(
        'chunk id to its row of vector_file, in row order (row i is entry i): chunk_files in order, then by chunk id; a chunk without a vector is not listed; empty when not_computed',
      ),
  })
  .superRefine((doc, ctx) => {
    const computed = doc.status === 'computed';
    const filled = [doc.model, doc.dimensions, doc.metric, doc.vector_file].filter((v) => v != null).length;
    if (computed ? filled !== 4 || doc.vectors.length === 0 : filled !== 0 || doc.vectors.length > 0)
      ctx.addIssue({
        code: 'custom',
        path: ['status'],
        message: computed
          ? 'computed needs model, dimensions, metric, vector_file and at least one vector'
          : 'not_computed has null model and dimensions, no metric or vector_file, and no vectors',
      });
  })
  .meta({ title: 'Embeddings manifest (embeddings-manifest.json, cap.advanced + cap.embeddings)' });

/** `https://<website host>/#<entity_* or fact_* id>`: absolute, the fragment names the node record. */
const JsonLdIdSchema = z
  .string()
  .regex(
    /^https:\/\/[a-z0-9.-]+(:[0-9]+)?\/#(entity|fact)_[0-9a-f]{8,64}$/,
    "must be the website's origin + /# + an entity_* or fact_* id",
  );

const JsonLdNodeSchema = z.looseObject({
  '@id': JsonLdIdSchema,
  '@type': z.string().regex(/^[A-Z][A-Za-z0-9]*$/, 'must be a schema.org type name'),
});

export const SchemaJsonLdSchema = z
  .strictObject({
    '@context': z.literal('https://schema.org'),
    '@graph': z.array(JsonLdNodeSchema),
  })
  .meta({ title: 'schema.org projection (schema.jsonld)' });

export type Manifest = z.infer<typeof ManifestSchema>;
export type ManifestFile = z.infer<typeof ManifestFileSchema>;
export type AiJson = z.infer<typeof AiJsonSchema>;
export type Versions = z.infer<typeof VersionsSchema>;
export type VersionEntry = z.infer<typeof VersionEntrySchema>;
export type McpManifest = z.infer<typeof McpManifestSchema>;
export type Trust = z.infer<typeof TrustSchema>;
export type EmbeddingsManifest = z.infer<typeof EmbeddingsManifestSchema>;
