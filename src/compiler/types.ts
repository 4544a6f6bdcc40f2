import type { ManifestFile, VersionEntry } from '../platform/node-format/index.js';
import type { CompileProgressListener } from './progress.js';
import type { RejectedKind, RejectedRecord } from './rejections.js';

/** Options of one compile. Nothing here comes from a clock, the disk or the environment. */
export interface CompileOptions {
  /**
   * RFC 3339 UTC build time: manifest.generated_at and the time
   * part of node_version. Required: the core never reads a clock.
   */
  buildTime: string;
  /**
   * The version this one replaces (for changes.jsonl, versions.json and the label sequence); none for a first version.
   */
  previous?: PreviousNode;
  /** ai.json license; default "all-rights-reserved". */
  license?: string;
  /** ai.json and llms.txt description; default "Knowledge node of <brand> (<domain>)". */
  description?: string;
  /** ai.json contact (email or URL); omitted by default. */
  contact?: string;
  /**
   * Told where the compile stands, per pass with counts (src/compiler/progress.ts); only called,
   * never read back, so the files are the same with or without it. Default none.
   */
  onProgress?: CompileProgressListener;
  /**
   * The embeddings whose stored vectors the node carries (embeddings.f32, when the plan has
   * cap.advanced and cap.embeddings): the model and its dimensions, and `key`, the model key the
   * graph's chunk_vectors rows are stored under (src/ingest/embeddings modelKeyOf). Default none:
   * embeddings-manifest.json says not_computed.
   */
  embeddings?: { model: string; dimensions: number; key: string };
  /**
   * Names the code that compiles (compilerCodeKey): a compile with it returns a CompileState, and
   * uses `since` only when that state was made by the same code. Default none.
   */
  codeKey?: string;
  /**
   * The CompileState of the compile of `previous` (its result.state, kept by the caller): where it
   * still holds (the same graph, code, website and options, and `previous` read alongside as the
   * store's validated live version), records whose rows were written before that compile are
   * copied from `previous` instead of being read and built again (docs/publishing.md "A compile
   * of what changed"). The files are the same bytes either way. Default none.
   */
  since?: CompileState;
}

/**
 * What a compile leaves for the next compile against its node (CompileOptions.since): which graph
 * and write sequence it read, and what else decided its lines.
 */
export interface CompileState {
  /** The node version it compiled. */
  nodeVersion: string;
  /** Digest of the code, the website and the options that decide a line (compile-since.ts contextKey). */
  contextKey: string;
  /** The graph it read (graph migration 0015) and the graph's write sequence as it read it. */
  graphId: string;
  seq: number;
  /** The graph's count of editorial writes as it read it (entities and facts are copied only when it is the same). */
  editorial: number;
  /** Every chunk it read and left out (rejected), or null when there were more than it keeps. */
  rejectedChunks: string[] | null;
  /** Every fact whose survivor it left out (rejected), or null when there were more than it keeps. */
  rejectedFacts: string[] | null;
  /** Every fact it withheld (no candidate left to export, or its subject entity hidden), or null when there were more than it keeps. */
  withheldFacts: string[] | null;
  /** Every entity it took attributes out of (those of its hidden facts), or null when there were more than it keeps. */
  attributesWithheld: string[] | null;
  /** Every entity it read and left out (rejected), or null when there were more than it keeps. */
  rejectedEntities: string[] | null;
}

/** What the compiler needs to know of the previous version (read by readPreviousNode from a node directory). */
export interface PreviousNode {
  nodeVersion: string;
  label: string | null;
  generatedAt: string;
  /** Its versions.json history (newest first), not including itself. */
  history: VersionEntry[];
  /** Its manifest files[] entries. */
  files: Array<Pick<ManifestFile, 'path' | 'checksum' | 'records'>>;
  /**
   * sha256 of each record line, keyed `${file}\u0000${record id}`. When absent, the record
   * files are read from `recordsDir` alongside the compile (src/compiler/changes.ts).
   */
  recordHashes?: Map<string, string>;
  /** The directory holding the previous version's record files (`recordFiles`), read as the compile goes. */
  recordsDir?: string;
  /** The record files of the previous manifest (sources.jsonl, facts.en.jsonl, ...). */
  recordFiles?: string[];
  /**
   * The previous version passed validateNode (a store's live version): a record whose line is
   * the same bytes as its line there is not checked against its schema again. Default false.
   */
  validated?: boolean;
}

/** The outcome of a compile: what a publisher needs to upload and announce the version. */
export interface CompileResult {
  nodeVersion: string;
  nodeVersionLabel: string;
  generatedAt: string;
  /** Every file of the node, manifest.json last. */
  files: ManifestFile[];
  /** Exported record counts per kind, what the export rules held back and what was rejected. */
  counts: CompileCounts;
  /**
   * Graph records left out because they failed their schema or the URL policy, sorted by file
   * then id; at most REJECTED_LIST_LIMIT (1,000) of them, counts.rejected has the totals.
   */
  rejected: RejectedRecord[];
  /** For the next compile against this node (CompileOptions.since); only with `codeKey` and a graph that tracks writes. */
  state?: CompileState;
}

export interface CompileCounts {
  entities: number;
  facts: number;
  relationships: number;
  chunks: number;
  qa: number;
  sources: number;
  withheld: {
    hiddenEntities: number;
    hiddenFacts: number;
    supersededFacts: number;
    unresolvedRelationships: number;
    staleQa: number;
    orphanedFacts: number;
  };
  /**
   * Records left out per kind because they failed their schema
   * or the URL policy (not written; references to them removed).
   */
  rejected: Record<RejectedKind, number>;
}
