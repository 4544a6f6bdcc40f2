import { countsAsVerified, trustScore, type WebsiteInfo } from '../control/records/index.js';
import {
  NODE_SCHEMA_VERSION,
  type AiJson,
  type EmbeddingsManifest,
  type ManifestFile,
  type McpManifest,
  type Trust,
  type VersionEntry,
  type Versions,
  VECTOR_FILE,
} from '../platform/node-format/index.js';
import type { PreviousNode } from './types.js';

/** The JSON text of a document file: two-space indent and a final line feed. */
export function renderJson(value: unknown): string {
  return JSON.stringify(value, null, 2) + '\n';
}

export function contentTypeOf(path: string): string {
  if (path.endsWith('.f32')) return 'application/octet-stream';
  if (path.endsWith('.jsonl')) return 'application/x-ndjson';
  if (path.endsWith('.jsonld')) return 'application/ld+json';
  if (path.endsWith('.json')) return 'application/json';
  if (path.endsWith('.xml')) return 'application/xml';
  return 'text/plain; charset=utf-8';
}

/** Immutable files go to versions/{ulid}/ with a one-year cache (docs/contract.md#published-layout). */
export function isImmutable(path: string): boolean {
  return path.endsWith('.jsonl') || path.endsWith('.f32') || path === 'schema.jsonld' || path === 'openapi.json';
}

export function trustTierOf(site: WebsiteInfo): Trust['trust_tier'] {
  const { method, state } = site.verification;
  return method !== null && countsAsVerified(state) ? method : 'unverified';
}

export function buildTrust(site: WebsiteInfo): Trust {
  return {
    schema_version: NODE_SCHEMA_VERSION,
    verification_method: site.verification.method,
    trust_tier: trustTierOf(site),
    verification_state: site.verification.state,
    trust_score: trustScore(site.verification.method, site.verification.state),
  };
}

export function buildAiJson(
  site: WebsiteInfo,
  input: {
    license: string;
    description: string;
    contact?: string;
    languages: string[];
    refreshHintSeconds: number;
    consumes: string[];
  },
): AiJson {
  const ai: AiJson = {
    schema_version: NODE_SCHEMA_VERSION,
    brand: site.brand,
    website_id: site.websiteId,
    entry: 'manifest.json',
    license: input.license,
    description: input.description,
    languages: input.languages,
  };
  if (input.contact !== undefined) ai.contact = input.contact;
  ai.refresh_hint_seconds = input.refreshHintSeconds;
  ai.consumes = input.consumes;
  return ai;
}

export function buildMcpManifest(site: WebsiteInfo, capabilities: readonly string[]): McpManifest {
  // Optional: the server defaults to the website it was started for (nodectl mcp --website).
  const websiteId = {
    type: 'string',
    const: site.websiteId,
    default: site.websiteId,
    description: 'the website this server is scoped to; optional, defaults to it',
  };
  return {
    schema_version: NODE_SCHEMA_VERSION,
    name: `nodectl-${site.domain}`,
    description: `Read-only knowledge of ${site.brand} (${site.domain}): search, entity facts and node files.`,
    website_id: site.websiteId,
    available: capabilities.includes('cap.mcp'),
    requires_capability: 'cap.mcp',
    transport: 'stdio',
    command: ['nodectl', 'mcp', '--website', site.websiteId],
    tools: [
      {
        name: 'search_website_knowledge',
        description: 'Ranked entity, fact and chunk hits for a text query.',
        input_schema: {
          type: 'object',
          properties: {
            websiteId,
            query: { type: 'string', minLength: 1 },
            limit: { type: 'integer', minimum: 1, maximum: 50 },
            mode: {
              type: 'string',
              enum: ['keyword', 'vector', 'hybrid'],
              description:
                'keyword (words), vector (meaning, chunks only) or hybrid (both, fused); default hybrid where the node carries vectors the server can search, else keyword',
            },
          },
          required: ['query'],
          additionalProperties: false,
        },
      },
      {
        name: 'get_entity_facts',
        description: 'The exported facts of one entity, by its entity_* id.',
        input_schema: {
          type: 'object',
          properties: { websiteId, entityId: { type: 'string', pattern: '^entity_[0-9a-f]+$' } },
          required: ['entityId'],
          additionalProperties: false,
        },
      },
      {
        name: 'list_node_files',
        description: 'The files of the live node with checksum and size.',
        input_schema: {
          type: 'object',
          properties: { websiteId },
          required: [],
          additionalProperties: false,
        },
      },
    ],
  };
}

/** The vectors a compile wrote into VECTOR_FILE: each chunk id with its row, in row order. */
export interface WrittenVectors {
  model: string;
  dimensions: number;
  chunkIds: string[];
}

/**
 * embeddings-manifest.json: not_computed without vectors (as before issue 39), else the model,
 * the vector file and each chunk's row (row i is vectors[i]).
 */
export function buildEmbeddingsManifest(
  chunkFiles: Array<{ path: string; language: string; records: number }>,
  vectors?: WrittenVectors,
): EmbeddingsManifest {
  if (vectors === undefined || vectors.chunkIds.length === 0)
    return {
      schema_version: NODE_SCHEMA_VERSION,
      status: 'not_computed',
      model: null,
      dimensions: null,
      chunk_files: chunkFiles,
      vectors: [],
    };
  return {
    schema_version: NODE_SCHEMA_VERSION,
    status: 'computed',
    model: vectors.model,
    dimensions: vectors.dimensions,
    metric: 'cosine',
    vector_file: { path: VECTOR_FILE, format: 'float32-le', rows: vectors.chunkIds.length },
    chunk_files: chunkFiles,
    vectors: vectors.chunkIds.map((chunk_id, row) => ({ chunk_id, row })),
  };
}

/** openapi.json: the node itself as a read-only HTTP API, one GET path per file. */
export function buildOpenApi(
  site: WebsiteInfo,
  label: string,
  files: ReadonlyArray<{ path: string }>,
): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const { path } of [...files, { path: 'manifest.json' }].sort((a, b) =>
    a.path < b.path ? -1 : a.path > b.path ? 1 : 0,
  )) {
    paths[`/${path}`] = {
      get: {
        operationId: 'get_' + path.replace(/[^A-Za-z0-9]+/g, '_'),
        summary: `Node file ${path}`,
        responses: {
          '200': { description: `${path} of the live version`, content: { [contentTypeOf(path).split(';')[0]!]: {} } },
        },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: `${site.brand} knowledge node`,
      version: label,
      description: `Static files of the knowledge node of ${site.domain}.`,
      'x-service-node-version': label,
    },
    servers: [{ url: './', description: 'where this node is served' }],
    paths,
  };
}

export function buildVersions(current: VersionEntry, previous: PreviousNode | undefined): Versions {
  const history: VersionEntry[] = [];
  if (previous !== undefined) {
    const entry: VersionEntry = { node_version: previous.nodeVersion, generated_at: previous.generatedAt };
    if (previous.label !== null) entry.node_version_label = previous.label;
    history.push(entry, ...previous.history.filter((h) => h.node_version !== previous.nodeVersion));
  }
  const versions: Versions = { schema_version: NODE_SCHEMA_VERSION, current, history: history.slice(0, 100) };
  if (previous !== undefined) versions.previous = previous.nodeVersion;
  return {
    schema_version: versions.schema_version,
    current: versions.current,
    ...(versions.previous ? { previous: versions.previous } : {}),
    history: versions.history,
  };
}

export function manifestEntry(
  file: { path: string; checksum: string; bytes: number; records?: number },
  language: string | undefined,
  producedBy: string,
): ManifestFile {
  const entry: ManifestFile = {
    path: file.path,
    content_type: contentTypeOf(file.path),
    checksum: file.checksum,
    bytes: file.bytes,
    immutable: isImmutable(file.path),
  };
  if (file.records !== undefined) entry.records = file.records;
  if (language !== undefined) entry.language = language;
  entry.produced_by = producedBy;
  return entry;
}
