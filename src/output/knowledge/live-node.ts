import { EmbeddingsManifestSchema, type Manifest } from '../../platform/node-format/index.js';
import type { NodeStoreReader } from '../publish/index.js';

/**
 * The exported records of a published node that agents query: entities, facts and chunks (and the sources chunks cite).
 */
export interface EntityRecord {
  id: string;
  type: string;
  name: string;
  language: string;
  confidence?: number;
  provenance_method?: string;
  source_id?: string;
  source_url?: string;
  attributes?: Record<string, unknown>;
}

export interface FactRecord {
  id: string;
  subject: string;
  predicate: string;
  value: unknown;
  display?: string;
  language: string;
  subject_entity_id?: string;
  importance: number;
  confidence?: number;
  provenance_method?: string;
  source_url?: string;
}

export interface ChunkRecord {
  id: string;
  text: string;
  tokens_estimate?: number;
  language: string;
  source_id?: string;
  entity_ids?: string[];
}

export interface SourceRecord {
  id: string;
  url: string;
  canonical_url?: string;
}

/** The chunk vectors a node carries (docs/node-format.md "Vectors"): row i of `data` is `chunkIds[i]`'s. */
export interface NodeVectors {
  model: string;
  dimensions: number;
  chunkIds: string[];
  /** embeddings.f32: `dimensions` little-endian float32 per row. */
  data: Buffer;
}

export interface LiveNode {
  manifest: Manifest;
  entities: EntityRecord[];
  facts: FactRecord[];
  chunks: ChunkRecord[];
  sources: SourceRecord[];
  /** Present when embeddings-manifest.json is computed. */
  vectors?: NodeVectors;
}

const EMBEDDINGS_MANIFEST = 'embeddings-manifest.json';

const RECORD_FILE = /^(entities|facts|chunks)\.[A-Za-z0-9-]+\.jsonl$|^(sources)\.jsonl$/;

/**
 * Reads the live version of a website's node from the publish store. Files are read from the
 * immutable versions/<ulid>/ copy the pointer names, so a publish that flips meanwhile cannot mix
 * two versions. Undefined when nothing is published (or the node was taken down). `vectors:
 * false` leaves the vectors unread (a reader that cannot embed a query has no use for them).
 */
export async function readLiveNode(
  store: NodeStoreReader,
  websiteId: string,
  options: { vectors?: boolean } = {},
): Promise<LiveNode | undefined> {
  const manifest = await store.liveManifest(websiteId);
  if (manifest === undefined) return undefined;
  const node: LiveNode = { manifest, entities: [], facts: [], chunks: [], sources: [] };
  const read = async (path: string): Promise<Buffer> => {
    const body = await store.versionFile(websiteId, manifest.node_version, path);
    if (body === undefined) throw new Error(`the live node ${manifest.node_version} lacks ${path} in the store`);
    return body;
  };
  for (const file of manifest.files) {
    if (file.path === EMBEDDINGS_MANIFEST) {
      if (options.vectors === false) continue;
      const vectors = await readVectors(read, manifest.node_version);
      if (vectors) node.vectors = vectors;
      continue;
    }
    const match = RECORD_FILE.exec(file.path);
    const kind = (match?.[1] ?? match?.[2]) as 'entities' | 'facts' | 'chunks' | 'sources' | undefined;
    if (kind === undefined) continue;
    for (const line of (await read(file.path)).toString('utf8').split('\n')) {
      if (line !== '') (node[kind] as unknown[]).push(JSON.parse(line));
    }
  }
  return node;
}

/**
 * The vectors of a node whose embeddings-manifest.json is computed, checked against it as
 * `nodectl validate` does (a row per listed chunk, in order); undefined when not computed.
 */
async function readVectors(read: (path: string) => Promise<Buffer>, version: string): Promise<NodeVectors | undefined> {
  const body = await read(EMBEDDINGS_MANIFEST);
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch (error) {
    throw new Error(`${EMBEDDINGS_MANIFEST} of the live node ${version} is not JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const parsed = EmbeddingsManifestSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(
      `${EMBEDDINGS_MANIFEST} of the live node ${version} fails its schema at ${issue.path.join('.') || '(root)'}: ${issue.message}`,
    );
  }
  const doc = parsed.data;
  if (doc.status !== 'computed' || !doc.vector_file || doc.model === null || doc.dimensions === null) return undefined;
  const data = await read(doc.vector_file.path);
  const rows = doc.vector_file.rows;
  if (data.byteLength !== rows * doc.dimensions * 4 || doc.vectors.length !== rows)
    throw new Error(
      `${doc.vector_file.path} of the live node ${version} holds ${data.byteLength} bytes and ${doc.vectors.length} listed chunks; ${EMBEDDINGS_MANIFEST} says ${rows} rows of ${doc.dimensions} float32`,
    );
  const chunkIds: string[] = [];
  for (const [i, entry] of doc.vectors.entries()) {
    if (entry.row !== i)
      throw new Error(`${EMBEDDINGS_MANIFEST} of the live node ${version} lists row ${entry.row} in place ${i}`);
    chunkIds.push(entry.chunk_id);
  }
  return { model: doc.model, dimensions: doc.dimensions, chunkIds, data };
}
