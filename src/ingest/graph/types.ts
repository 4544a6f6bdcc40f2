import type { Freshness, ProvenanceMethod } from '../extract/index.js';

export type { Freshness, ProvenanceMethod };

/**
 * Records of a website's knowledge graph as the graph database keeps them. They carry internal
 * state the node files never show (hidden, pinned, status, stale, editorial fields); the
 * compiler applies the export rules (docs/contract.md#export-rules) when it turns them into node records.
 */
export type EditorialStatus = 'draft' | 'reviewed' | 'approved' | 'rejected';

/** Editorial state that survives re-ingestion of the same item and is never serialized. */
export interface EditorialState {
  hidden: boolean;
  pinned: boolean;
  editorialStatus: EditorialStatus | null;
  reviewedBy: string | null;
  originalValue: unknown;
}

export interface EntityRow {
  id: string; // entity_<hash> of (entityType, canonicalKey)
  type: string; // schema.org type name, e.g. Product, BlogPosting, Person
  canonicalKey: string;
  name: string;
  language: string;
  confidence: number;
  provenanceMethod: ProvenanceMethod;
  sourceId: string | null;
  sourceUrl: string | null;
  /** 1..5: how central the entity is (the item's own entity and the site entity rank high). */
  importance: number;
  attributes: Record<string, unknown>;
  hidden: boolean;
}

export interface FactRow {
  id: string; // fact_<hash> of (subject, predicate, language); superseded candidates share it
  subject: string;
  subjectEntityId: string | null;
  predicate: string;
  value: string | number | boolean | Record<string, unknown>;
  language: string;
  confidence: number;
  provenanceMethod: ProvenanceMethod;
  unit: string | null;
  currency: string | null;
  display: string | null;
  importance: number; // 1..5
  freshness: Freshness;
  validFrom: string | null;
  validUntil: string | null;
  sourceId: string | null;
  sourceUrl: string | null;
  /** Only 'active' facts are emitted (export rule 2). */
  status: 'active' | 'superseded' | 'merged';
  editorial: EditorialState;
}

export interface RelationshipRow {
  id: string; // rel_<hash> of (fromStableId, relationType, toRef)
  type: string;
  fromEntityId: string;
  toEntityId: string | null;
  /** Natural key of the target; lets a later item resolve a dangling edge. */
  toRef: string;
  resolutionStatus: 'resolved' | 'dangling';
  language: string;
  confidence: number;
  provenanceMethod: ProvenanceMethod;
  sourceId: string | null;
  sourceUrl: string | null;
  /**
   * The row was written before the compile a read names (`RowsSince`): its line in that compile's
   * node stands while its ends and its source are exported as they were then.
   */
  unchanged?: true;
}

export interface ChunkRow {
  id: string; // chunk_<hash> of the canonical chunk id
  text: string;
  tokensEstimate: number;
  language: string;
  entityIds: string[];
  sourceId: string | null;
  /** Heading trail of the chunk, for llms-full.txt and citations. */
  headingPath: string[];
  position: number;
}

/**
 * A chunk whose row was written before the compile a read names (`RowsSince`): only what decides
 * whether its line in that compile's node still stands, the rest of the line being the same.
 */
export interface UnchangedChunkRow {
  id: string;
  unchanged: true;
  sourceId: string | null;
  /** Every entity id the chunk mentions, existing or not (a ChunkRow keeps the existing ones). */
  mentionIds: string[];
}

/**
 * An entity whose row was written before the compile a read names (`RowsSince`), and whose
 * attributes no hidden fact takes out: what its line and citation need besides that line, and
 * what the entity scan ranks it by (its attributes, most of a row, are left in the graph).
 */
export interface UnchangedEntityRow {
  id: string;
  unchanged: true;
  sourceId: string | null;
  sourceUrl: string | null;
  provenanceMethod: ProvenanceMethod;
  confidence: number;
  type: string;
  name: string;
  language: string;
  importance: number;
  hidden: boolean;
}

/** A fact a `factsSince` read names as changed that has no candidate left in the language. */
export interface GoneFact {
  id: string;
  gone: true;
}

/**
 * What a read takes as unchanged: rows written at or before write sequence `seq` (GraphState.seq
 * as a compile read it), but for `readWhole` (entities and chunks then come as UnchangedEntityRow
 * and UnchangedChunkRow; a `factsSince` read leaves unchanged facts out).
 */
export interface RowsSince {
  seq: number;
  readWhole: readonly string[];
}

/** The graph's identity, write sequence, editorial writes and what records_gone still holds (graph migrations 0015, 0016, 0018). */
export interface GraphState {
  graphId: string;
  seq: number;
  /** Raised by every write to the editorial table. */
  editorial: number;
  /** records_gone holds every row deleted after this sequence (graph migration 0018: older ones are pruned). */
  goneFloor: number;
}

/** A chunk's stored embedding vector (chunk_vectors, graph migration 0011). */
export interface ChunkVectorRow {
  chunkId: string;
  /** Hex of the first 16 bytes of the sha256 of the text it was embedded from (lowercase). */
  textHash: string;
  /** Little-endian float32. */
  vector: Buffer;
}

export interface QaRow {
  id: string; // qa_<hash> of (question, language)
  question: string;
  answer: string;
  language: string;
  factIds: string[];
  entityIds: string[];
  confidence: number;
  provenanceMethod: ProvenanceMethod;
  /** Stale Q&A is never exported (export rule 4). */
  stale: boolean;
  /**
   * No row of the id was written (or deleted) after the compile a read names (`RowsSince`): its
   * line in that compile's node stands while the facts and entities it names are exported as they were then.
   */
  unchanged?: true;
}

export interface SourceRow {
  id: string; // src_<hash> of the url (canonical_url wins)
  url: string;
  canonicalUrl: string | null;
  title: string | null;
  contentType: string;
  lastSeenAt: string;
  checksum: string;
  language: string;
  trust: number;
  /** The row was written before the compile a read names (`RowsSince`): its line in that compile's node stands. */
  unchanged?: true;
}

/**
 * Read access to one website's graph, in the stable order the compiler emits (by id). Iterators
 * stream from the database so a 100,000-item site never sits in memory whole.
 */
export interface GraphReader {
  /** Languages that hold at least one record, sorted. */
  languages(): string[];
  entities(language: string): Iterable<EntityRow>;
  /** With `since`, the rows unchanged since then come as UnchangedEntityRow. */
  entities(language: string, since: RowsSince | undefined): Iterable<EntityRow | UnchangedEntityRow>;
  facts(language: string): Iterable<FactRow>;
  /**
   * The candidates of the facts that changed since then (reader.ts FACTS_SINCE_SQL), as facts()
   * gives them; a changed fact without a candidate in the language comes as GoneFact.
   */
  factsSince(language: string, since: RowsSince): Iterable<FactRow | GoneFact>;
  /** How many candidates of the language are not their fact's survivor (status other than active). */
  supersededCandidates(language: string): number;
  /** With `since`, the rows unchanged since then say so (RelationshipRow.unchanged). */
  relationships(language: string, since?: RowsSince): Iterable<RelationshipRow>;
  /** With `since`, the rows unchanged since then come as UnchangedChunkRow. */
  chunks(language: string, since?: RowsSince): Iterable<ChunkRow | UnchangedChunkRow>;
  /** With `since`, the rows unchanged since then say so (QaRow.unchanged). */
  qa(language: string, since?: RowsSince): Iterable<QaRow>;
  /** With `since`, the rows unchanged since then say so (SourceRow.unchanged). */
  sources(since?: RowsSince): Iterable<SourceRow>;
  entityById(id: string): EntityRow | undefined;
  /** The graph's identity and write sequence as this reader reads the graph; undefined when it has none. */
  graphState?(): GraphState | undefined;
  /**
   * The vectors of model key `model` (src/ingest/embeddings modelKeyOf) of the chunks of
   * `language`, by chunk id; whether each still fits its chunk's text is the caller's to check.
   */
  chunkVectors(language: string, model: string): Iterable<ChunkVectorRow>;
  /**
   * Announces the reads that follow, in their order, each then read to its end: a reader may
   * start them ahead (ThreadedGraphReader). Until they are done, only they may be read.
   */
  plan?(reads: readonly PlannedRead[]): void;
}

/** One read of a plan: a record kind of one language, or the sources. */
export type PlannedRead =
  | { kind: 'facts' | 'supersededCandidates'; language: string }
  | { kind: 'entities' | 'chunks' | 'relationships' | 'qa'; language: string; since?: RowsSince }
  | { kind: 'factsSince'; language: string; since: RowsSince }
  | { kind: 'chunkVectors'; language: string; model: string }
  | { kind: 'sources'; since?: RowsSince };
