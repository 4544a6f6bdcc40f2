import { chunkIdOf } from '../../ingest/graph/apply-contribution.js';

/** What a gdpr_erasure names, gathered when the delete is accepted (the graph still holds it then). */
export interface ErasureSpec {
  /** `type:id` of every erased item: chunk ids derive from it, whatever url the item had. */
  itemKeys: readonly string[];
  /** Source ids of the items (their url, or canonical url, as last known). */
  sourceIds: readonly string[];
  /** Record ids the items contributed (entities, facts, relationships, chunks, Q&A). */
  recordIds: readonly string[];
}

/** A chunk of an item has position < this; the chunk ids of older versions are derived up to it. */
const MAX_CHUNK_POSITION = 10_000;

/** Fields that hold structure (ids, enums, timestamps), not text: never searched for as erased text. */
const STRUCTURAL = new Set([
  'id',
  'schema_version',
  'language',
  'type',
  'confidence',
  'provenance_method',
  'predicate',
  'unit',
  'currency',
  'importance',
  'freshness',
  'valid_from',
  'valid_until',
  'source_id',
  'subject_entity_id',
  'from_entity_id',
  'to_entity_id',
  'resolution_status',
  'entity_ids',
  'fact_ids',
  'tokens_estimate',
  'content_type',
  'last_seen_at',
  'checksum',
  'trust',
  'record_id',
  'record_kind',
  'rank',
  'file',
  'retrieved_at',
]);

interface RecordLine {
  id?: unknown;
  source_id?: unknown;
  fact_ids?: unknown;
  language?: unknown;
}

/**
 * Decides which lines of published .jsonl files came from erased items, across every version
 * of a site. A line is the item's when its source_id is one of the items' sources (for entities
 * and facts that is the contributor their fields were taken from), when it is one of the items'
 * chunks (chunk ids are keyed by item, so a chunk of an older url counts, and its source joins
 * the item's sources), when it is a record only the items produced (gone from the graph now), or
 * a Q&A the items produced or that cites a fact line of theirs. Feed chunk files first and Q&A
 * files last (see recordFileOrder). Every text value of such a line is erased text.
 */
export class ErasedRecords {
  private readonly sources: Set<string>;
  private readonly records: Set<string>;
  private readonly chunkIds = new Map<string, Set<string>>();
  private readonly facts = new Set<string>();
  /** Text values and ids of the erased lines seen so far. */
  readonly texts = new Set<string>();

  constructor(
    private readonly websiteId: string,
    private readonly spec: ErasureSpec,
    private readonly inGraph: (recordId: string) => boolean,
  ) {
    this.sources = new Set(spec.sourceIds);
    this.records = new Set(spec.recordIds);
  }

  /** True when any line of this .jsonl body came from an erased item; their text is collected. */
  scanJsonl(body: Buffer): boolean {
    let dirty = false;
    for (const line of body.toString('utf8').split('\n')) {
      if (line === '' || line[0] !== '{') continue;
      let record: RecordLine;
      try {
        record = JSON.parse(line) as RecordLine;
      } catch {
        continue;
      }
      if (!this.isErased(record)) continue;
      dirty = true;
      this.collect(record as Record<string, unknown>);
    }
    return dirty;
  }

  private isErased(r: RecordLine): boolean {
    const id = typeof r.id === 'string' ? r.id : '';
    if (typeof r.source_id === 'string' && this.sources.has(r.source_id)) {
      if (id.startsWith('fact_')) this.facts.add(id);
      return true;
    }
    if (id.startsWith('src_')) return this.sources.has(id);
    if (id.startsWith('chunk_') && typeof r.language === 'string' && this.chunksOf(r.language).has(id)) {
      if (typeof r.source_id === 'string') this.sources.add(r.source_id);
      return true;
    }
    if (id.startsWith('qa_'))
      return this.records.has(id) || (Array.isArray(r.fact_ids) && r.fact_ids.some((f) => this.facts.has(f as string)));
    if (id !== '' && this.records.has(id) && !this.inGraph(id)) {
      if (id.startsWith('fact_')) this.facts.add(id);
      return true;
    }
    return false;
  }

  private chunksOf(language: string): Set<string> {
    let ids = this.chunkIds.get(language);
    if (!ids) {
      ids = new Set();
      for (const key of this.spec.itemKeys)
        for (let p = 0; p < MAX_CHUNK_POSITION; p++) ids.add(chunkIdOf(this.websiteId, key, p, language));
      this.chunkIds.set(language, ids);
    }
    return ids;
  }

  private collect(value: Record<string, unknown>): void {
    if (typeof value.id === 'string') this.texts.add(value.id);
    const walk = (v: unknown): void => {
      if (typeof v === 'string') this.texts.add(v);
      else if (Array.isArray(v)) v.forEach(walk);
      else if (v !== null && typeof v === 'object') for (const inner of Object.values(v)) walk(inner);
    };
    for (const [key, v] of Object.entries(value)) if (!STRUCTURAL.has(key)) walk(v);
  }
}

/** Order in which .jsonl files are scanned: chunks first (they add sources), Q&A last (they cite facts). */
export function recordFileOrder(path: string): number {
  const name = path.slice(path.lastIndexOf('/') + 1);
  if (name.startsWith('chunks.')) return 0;
  if (name.startsWith('qa.')) return 2;
  return 1;
}
