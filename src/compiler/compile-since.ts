import { createHash } from 'node:crypto';
import type { GraphState, RowsSince } from '../ingest/graph/index.js';
import type { WebsiteInfo } from '../control/records/index.js';
import { NODE_SCHEMA_VERSION } from '../platform/node-format/index.js';
import type { CompileOptions, CompileState } from './types.js';

/** Ids a CompileState lists of a kind; past this many it lists none, and the next compile reads every record of the kind. */
export const STATE_IDS_LIMIT = 10_000;

/**
 * A compile copied a line it was told was unchanged, and the node it compiles against does not
 * hold it: the state did not describe that node. The compile starts again without `since`.
 */
export class SinceMismatch extends Error {}

/** What a compile that uses a CompileState knows: the reads' `since`, and whose export changed. */
export interface SinceRun {
  chunks: RowsSince;
  /**
   * For the entities' reads, the scan's and the lines': none when the editorial table was written
   * since. An entity the state lists as rejected, or whose attributes it took out, is read whole.
   */
  entities: RowsSince | undefined;
  /**
   * For a factsSince read, whose named facts are those the state lists as rejected or withheld;
   * none when the editorial table was written since (a hidden or pinned fact, a hidden entity).
   */
  facts: RowsSince | undefined;
  /** For the sources' read: a source's line holds its row alone (and the context). */
  sources: RowsSince;
  /** For the relationships' reads: a relationship's line holds its row and its ends' and source's export. */
  relationships: RowsSince;
  /**
   * For the Q&A's reads: none without a factsSince read, whose facts (readFacts) are the only ones
   * that can be exported, or withheld, otherwise than in the live version.
   */
  qa: RowsSince | undefined;
  /** Entities written now without a line in the live version, or the reverse (ChangeLog.trackFlips). */
  flippedEntities: Set<string>;
  /** The facts the factsSince reads named: every other fact's line was copied. */
  readFacts: Set<string>;
  /** Sources whose line is not the live version's: another line, none where there was one, or the reverse. */
  changedSources: Set<string>;
}

/**
 * Digest of what decides a record's line besides its graph row and what it refers to: the code,
 * the node format's version, the website and the compile's options (not the build time and the
 * previous version, which only documents and changes.jsonl carry).
 */
export function contextKey(codeKey: string, site: WebsiteInfo, options: CompileOptions): string {
  const context = {
    codeKey,
    schema: NODE_SCHEMA_VERSION,
    site,
    license: options.license ?? null,
    description: options.description ?? null,
    contact: options.contact ?? null,
    embeddings: options.embeddings ?? null,
  };
  return createHash('sha256').update(JSON.stringify(context)).digest('hex');
}

/**
 * The SinceRun of a compile whose options carry a CompileState that still holds: made by the same
 * code and context from this graph at or before its current write sequence, for the live version
 * this compile reads alongside (validated, streamed), with every chunk it left out listed. Chunk
 * vectors need each chunk's text: a node that carries them reads every chunk.
 */
export function usableSince(
  options: CompileOptions,
  graph: GraphState | undefined,
  key: string | undefined,
  carriesVectors: boolean,
): SinceRun | undefined {
  const { since, previous } = options;
  if (since === undefined || previous === undefined || graph === undefined || key === undefined) return undefined;
  if (previous.validated !== true || previous.recordsDir === undefined || previous.recordHashes !== undefined)
    return undefined;
  if (since.nodeVersion !== previous.nodeVersion || since.contextKey !== key) return undefined;
  if (since.graphId !== graph.graphId || since.seq > graph.seq) return undefined;
  if (since.rejectedChunks === null || carriesVectors) return undefined;
  // A fact the live version left out has no line to copy: the read names it.
  // The facts read finds deleted rows in records_gone, which must reach back to the state.
  const facts =
    since.editorial === graph.editorial &&
    since.seq >= graph.goneFloor &&
    since.rejectedFacts !== null &&
    since.withheldFacts !== null
      ? { seq: since.seq, readWhole: [...since.rejectedFacts, ...since.withheldFacts] }
      : undefined;
  return {
    chunks: { seq: since.seq, readWhole: since.rejectedChunks },
    // An entity its compile took attributes out of may have them back now with its row the same;
    // one it rejected has no line to copy, and the scan checks it again.
    entities:
      since.editorial === graph.editorial && since.attributesWithheld !== null && since.rejectedEntities !== null
        ? { seq: since.seq, readWhole: [...since.attributesWithheld, ...since.rejectedEntities] }
        : undefined,
    facts,
    sources: { seq: since.seq, readWhole: [] },
    relationships: { seq: since.seq, readWhole: [] },
    qa: facts === undefined ? undefined : { seq: since.seq, readWhole: [] },
    // Plain sets: they hold what changed, few ids, and are asked for every copied line's references.
    flippedEntities: new Set(),
    changedSources: new Set(),
    readFacts: new Set(),
  };
}

/**
 * Ids a CompileState lists (the chunks, facts and entities a compile rejected, the facts it
 * withheld, the entities it took attributes out of), as a compile collects them.
 */
export class StateIds {
  private ids: string[] | null = [];

  add(id: string): void {
    if (this.ids === null) return;
    if (this.ids.length >= STATE_IDS_LIMIT) this.ids = null;
    else this.ids.push(id);
  }

  list(): string[] | null {
    return this.ids === null ? null : [...this.ids].sort();
  }
}

/** The ids a compile collects for its state, by CompileState field. */
export type StateLists = Record<
  'rejectedChunks' | 'rejectedFacts' | 'withheldFacts' | 'attributesWithheld' | 'rejectedEntities',
  StateIds
>;

/** The state a compile leaves, or undefined without a code key or a graph that tracks writes. */
export function compileStateOf(
  nodeVersion: string,
  key: string | undefined,
  graph: GraphState | undefined,
  lists: StateLists,
): CompileState | undefined {
  if (key === undefined || graph === undefined) return undefined;
  return {
    nodeVersion,
    contextKey: key,
    graphId: graph.graphId,
    seq: graph.seq,
    editorial: graph.editorial,
    rejectedChunks: lists.rejectedChunks.list(),
    rejectedFacts: lists.rejectedFacts.list(),
    withheldFacts: lists.withheldFacts.list(),
    attributesWithheld: lists.attributesWithheld.list(),
    rejectedEntities: lists.rejectedEntities.list(),
  };
}
