import { z } from 'zod';
import {
  AiJsonSchema,
  EmbeddingsManifestSchema,
  ManifestSchema,
  McpManifestSchema,
  OpenApiSchema,
  SchemaJsonLdSchema,
  TrustSchema,
  VersionsSchema,
} from './documents.js';
import { ChangeRecordSchema, CitationRecordSchema, PriorityFeedRecordSchema } from './feeds.js';
import {
  ChunkRecordSchema,
  EntityRecordSchema,
  FactRecordSchema,
  QaRecordSchema,
  RelationshipRecordSchema,
  SourceRecordSchema,
} from './records.js';

/**
 * Every node file kind with its zod schema. `line` kinds validate each line of a .jsonl file,
 * `document` kinds the whole JSON file. schemas/<name>.schema.json is generated from this list
 * (npm run schemas) and a test keeps the two in sync.
 */
export interface NodeSchemaEntry {
  /** Schema file name stem: schemas/<name>.schema.json. */
  readonly name: string;
  readonly shape: 'line' | 'document';
  readonly schema: z.ZodType;
  /** Does this schema govern the node file at `path`? */
  matches(path: string): boolean;
}

const perLanguage = (kind: string) => (path: string) => new RegExp(`^${kind}\\.[A-Za-z0-9-]+\\.jsonl$`).test(path);
const exactly = (file: string) => (path: string) => path === file;

export const NODE_SCHEMAS: readonly NodeSchemaEntry[] = [
  { name: 'manifest', shape: 'document', schema: ManifestSchema, matches: exactly('manifest.json') },
  { name: 'ai', shape: 'document', schema: AiJsonSchema, matches: exactly('ai.json') },
  { name: 'entity', shape: 'line', schema: EntityRecordSchema, matches: perLanguage('entities') },
  { name: 'fact', shape: 'line', schema: FactRecordSchema, matches: perLanguage('facts') },
  { name: 'relationship', shape: 'line', schema: RelationshipRecordSchema, matches: perLanguage('relationships') },
  { name: 'chunk', shape: 'line', schema: ChunkRecordSchema, matches: perLanguage('chunks') },
  { name: 'qa', shape: 'line', schema: QaRecordSchema, matches: perLanguage('qa') },
  { name: 'source', shape: 'line', schema: SourceRecordSchema, matches: exactly('sources.jsonl') },
  { name: 'priority-feed', shape: 'line', schema: PriorityFeedRecordSchema, matches: exactly('priority-feed.jsonl') },
  { name: 'citation', shape: 'line', schema: CitationRecordSchema, matches: exactly('citations.jsonl') },
  { name: 'change', shape: 'line', schema: ChangeRecordSchema, matches: exactly('changes.jsonl') },
  { name: 'versions', shape: 'document', schema: VersionsSchema, matches: exactly('versions.json') },
  { name: 'mcp', shape: 'document', schema: McpManifestSchema, matches: exactly('mcp.json') },
  { name: 'trust', shape: 'document', schema: TrustSchema, matches: exactly('trust.json') },
  { name: 'openapi', shape: 'document', schema: OpenApiSchema, matches: exactly('openapi.json') },
  {
    name: 'embeddings-manifest',
    shape: 'document',
    schema: EmbeddingsManifestSchema,
    matches: exactly('embeddings-manifest.json'),
  },
  { name: 'schema-jsonld', shape: 'document', schema: SchemaJsonLdSchema, matches: exactly('schema.jsonld') },
];

/** The schema entry of a node file, or undefined for files that are not JSON (llms.txt, sitemap-ai.xml). */
export function schemaForPath(path: string): NodeSchemaEntry | undefined {
  return NODE_SCHEMAS.find((entry) => entry.matches(path));
}

export const JSON_SCHEMA_ID_BASE = 'https://nodectl.dev/schemas/node/1.0.0/';

/** The JSON Schema (draft 2020-12) of one entry, as committed under schemas/. */
export function toJsonSchema(entry: NodeSchemaEntry): Record<string, unknown> {
  const generated = z.toJSONSchema(entry.schema, { target: 'draft-2020-12', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  const { $schema, ...rest } = generated;
  return {
    $comment: `Generated from src/platform/node-format by \`npm run schemas\`; do not edit. Validates ${entry.shape === 'line' ? 'each line of' : 'the whole of'} the matching node file.`,
    $schema,
    $id: `${JSON_SCHEMA_ID_BASE}${entry.name}.schema.json`,
    ...rest,
  };
}

/** Text of schemas/<name>.schema.json: pretty JSON with a final line feed. */
export function renderJsonSchemaFile(entry: NodeSchemaEntry): string {
  return JSON.stringify(toJsonSchema(entry), null, 2) + '\n';
}

const RECORD_FILE = /^((entities|facts|relationships|chunks|qa)\.[A-Za-z0-9-]+|sources)\.jsonl$/;

/**
 * A knowledge record file (entities, facts, relationships, chunks, Q&A, sources); feeds such as
 * changes.jsonl are not. "records" in publish, validate and the API count the lines of these only.
 */
export const isRecordFile = (path: string): boolean => RECORD_FILE.test(path);
