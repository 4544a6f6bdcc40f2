import { compileNode } from '../../compiler/compile-node.js';
import type { NodeSink } from '../../compiler/sink.js';
import type { CompileCounts } from '../../compiler/types.js';
import type { GraphReader } from '../../ingest/graph/types.js';
import type { Manifest, PriorityFeedRecord } from '../node-format/index.js';
import type { WebsiteInfo } from '../../control/records/website-info.js';

/**
 * The node preview (docs/contract.md#management-api, docs/knowledge.md "Node preview"): what a
 * publish would produce now, compiled by the real compiler with nothing written anywhere.
 */

/** How many of the priority feed's entities and facts the preview lists. */
export const PREVIEW_TOP = 10;
/** Files the publisher rewrites or that name the version: compared with the live version as a whole, not byte for byte. */
const VERSIONED = new Set(['manifest.json', 'versions.json', 'changes.jsonl', 'openapi.json']);

/** A compile summarised, before it is compared with the live version (cacheable per graph state). */
export interface CompiledPreview {
  files: Array<{ path: string; bytes: number; checksum: string; records?: number }>;
  llmsTxt: string;
  topEntities: Array<{ id: string; name: string; importance: number; language: string; source_url?: string }>;
  topFacts: Array<{ id: string; label: string; importance: number; language: string; source_url?: string }>;
  counts: CompileCounts;
}

export interface PreviewFile {
  path: string;
  bytes: number;
  records?: number;
  state: 'new' | 'changed' | 'unchanged';
}

export interface NodePreview {
  files: PreviewFile[];
  /** Files the live version has that a publish would drop. */
  removed_files: string[];
  /** True when a publish would find the live version says the same (it publishes nothing without force). */
  same_as_live: boolean;
  llms_txt: string;
  top_entities: CompiledPreview['topEntities'];
  top_facts: CompiledPreview['topFacts'];
  counts: {
    entities: number;
    facts: number;
    relationships: number;
    chunks: number;
    qa: number;
    sources: number;
    withheld: CompileCounts['withheld'];
  };
  live_version: { node_version: string; node_version_label: string | null; generated_at: string } | null;
}

/** Files the preview reads back; every other file is hashed and counted by the compiler, then dropped. */
const KEPT = new Set(['llms.txt', 'priority-feed.jsonl']);

/** A sink that keeps only the files the preview shows, so a large node never sits in memory. */
function createPreviewSink(kept: Map<string, string>): NodeSink {
  return {
    open(path) {
      const parts: Uint8Array[] = [];
      return {
        write: (chunk) => void (KEPT.has(path) && parts.push(chunk)),
        close: () => void (KEPT.has(path) && kept.set(path, Buffer.concat(parts).toString('utf8'))),
      };
    },
  };
}

/**
 * Compiles the graph as a publish would (the same options as the website publish: the build
 * time only; the files a publish compares do not depend on it or on the previous version) and
 * summarises it. Throws what the compile throws (node.uuid_leak, publish.validation_failed).
 */
export function compilePreview(reader: GraphReader, site: WebsiteInfo, buildTime: string): CompiledPreview {
  const kept = new Map<string, string>();
  const result = compileNode(reader, site, { buildTime }, createPreviewSink(kept));
  const feed = (kept.get('priority-feed.jsonl') ?? '')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as PriorityFeedRecord);
  const url = (r: PriorityFeedRecord) => (r.source_url === undefined ? {} : { source_url: r.source_url });
  return {
    files: result.files.map((f) => ({
      path: f.path,
      bytes: f.bytes,
      checksum: f.checksum,
      ...(f.records === undefined ? {} : { records: f.records }),
    })),
    llmsTxt: kept.get('llms.txt') ?? '',
    topEntities: feed
      .filter((r) => r.record_kind === 'entity')
      .slice(0, PREVIEW_TOP)
      .map((r) => ({ id: r.record_id, name: r.label, importance: r.importance, language: r.language, ...url(r) })),
    topFacts: feed
      .filter((r) => r.record_kind === 'fact')
      .slice(0, PREVIEW_TOP)
      .map((r) => ({ id: r.record_id, label: r.label, importance: r.importance, language: r.language, ...url(r) })),
    counts: result.counts,
  };
}

/**
 * Each compiled file's state against the live manifest: new (no live file of that path),
 * unchanged (same checksum), changed. The version's own files (manifest, versions.json,
 * changes.jsonl, openapi.json) always differ byte for byte: they are unchanged when everything
 * else is (a publish would keep the live version), changed otherwise.
 */
export function compareWithLive(compiled: CompiledPreview, live: Manifest | undefined): NodePreview {
  const liveFiles = new Map((live?.files ?? []).map((f) => [f.path, f.checksum]));
  const content = compiled.files.filter((f) => !VERSIONED.has(f.path));
  const stateOf = (f: { path: string; checksum: string }): PreviewFile['state'] => {
    const before = liveFiles.get(f.path);
    return before === undefined ? 'new' : before === f.checksum ? 'unchanged' : 'changed';
  };
  const paths = new Set(compiled.files.map((f) => f.path));
  const removed = [...liveFiles.keys()].filter((p) => !paths.has(p)).sort();
  const same = live !== undefined && removed.length === 0 && content.every((f) => stateOf(f) === 'unchanged');
  const files = compiled.files.map((f): PreviewFile => {
    // The manifest never lists itself: it is there whenever a version is live.
    const inLive = f.path === 'manifest.json' ? live !== undefined : liveFiles.has(f.path);
    const state = !VERSIONED.has(f.path) ? stateOf(f) : !inLive ? 'new' : same ? 'unchanged' : 'changed';
    return { path: f.path, bytes: f.bytes, ...(f.records === undefined ? {} : { records: f.records }), state };
  });
  const { entities, facts, relationships, chunks, qa, sources, withheld } = compiled.counts;
  return {
    files,
    removed_files: removed,
    same_as_live: same,
    llms_txt: compiled.llmsTxt,
    top_entities: compiled.topEntities,
    top_facts: compiled.topFacts,
    counts: { entities, facts, relationships, chunks, qa, sources, withheld },
    live_version: live
      ? {
          node_version: live.node_version,
          node_version_label: live.node_version_label ?? null,
          generated_at: live.generated_at,
        }
      : null,
  };
}
