import type { Manifest } from '../../platform/node-format/index.js';
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

export interface LiveNode {
  manifest: Manifest;
  entities: EntityRecord[];
  facts: FactRecord[];
  chunks: ChunkRecord[];
  sources: SourceRecord[];
}

const RECORD_FILE = /^(entities|facts|chunks)\.[A-Za-z0-9-]+\.jsonl$|^(sources)\.jsonl$/;

/**
 * Reads the live version of a website's node from the publish store. Files are read from the
 * immutable versions/<ulid>/ copy the pointer names, so a publish that flips meanwhile cannot mix
 * two versions. Undefined when nothing is published (or the node was taken down).
 */
export async function readLiveNode(store: NodeStoreReader, websiteId: string): Promise<LiveNode | undefined> {
  const manifest = await store.liveManifest(websiteId);
  if (manifest === undefined) return undefined;
  const node: LiveNode = { manifest, entities: [], facts: [], chunks: [], sources: [] };
  for (const file of manifest.files) {
    const match = RECORD_FILE.exec(file.path);
    const kind = (match?.[1] ?? match?.[2]) as 'entities' | 'facts' | 'chunks' | 'sources' | undefined;
    if (kind === undefined) continue;
    const body = await store.versionFile(websiteId, manifest.node_version, file.path);
    if (body === undefined) throw new Error(`the live node ${manifest.node_version} lacks ${file.path} in the store`);
    for (const line of body.toString('utf8').split('\n')) {
      if (line !== '') (node[kind] as unknown[]).push(JSON.parse(line));
    }
  }
  return node;
}
