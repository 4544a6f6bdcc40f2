import type { ChunkRecord, EntityRecord, FactRecord, LiveNode } from './live-node.js';

export type HitKind = 'entity' | 'fact' | 'chunk';

export interface SearchHit {
  kind: HitKind;
  id: string;
  /** Relevance, rounded to 4 decimals; higher is better. */
  score: number;
  language: string;
  /** Entity name, "subject predicate" of a fact, or the chunk's first words. */
  title: string;
  /** Entity description, fact value, or chunk text (at most SNIPPET_CHARS). */
  text: string;
  entity_id?: string;
  source_url?: string;
}

interface Field {
  tokens: ReadonlySet<string>;
  weight: number;
}

interface Document {
  hit: Omit<SearchHit, 'score'>;
  fields: Field[];
  /** Tie-break after score: facts of high importance first. */
  importance: number;
}

const SNIPPET_CHARS = 300;
const KIND_ORDER: Record<HitKind, number> = { entity: 0, fact: 1, chunk: 2 };

/** Lower-cased words with diacritics folded ("Café" and "cafe" meet); one-letter words dropped. */
export function tokenize(text: string): string[] {
  const words = text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return words.filter((w) => w.length > 1 || /\d/.test(w));
}

const snippet = (text: string) => (text.length <= SNIPPET_CHARS ? text : `${text.slice(0, SNIPPET_CHARS - 1)}…`);
const valueText = (fact: FactRecord) => fact.display ?? (typeof fact.value === 'string' ? fact.value : JSON.stringify(fact.value));
const field = (text: string, weight: number): Field => ({ tokens: new Set(tokenize(text)), weight });

function entityDocument(e: EntityRecord): Document {
  const description = typeof e.attributes?.description === 'string' ? e.attributes.description : '';
  return {
    hit: { kind: 'entity', id: e.id, language: e.language, title: e.name, text: snippet(description), ...(e.source_url ? { source_url: e.source_url } : {}) },
    fields: [field(e.name, 3), field(e.type, 1), field(description, 1)],
    importance: 0,
  };
}

function factDocument(f: FactRecord): Document {
  const value = valueText(f);
  const predicate = f.predicate.replace(/_/g, ' ');
  return {
    hit: { kind: 'fact', id: f.id, language: f.language, title: `${f.subject} ${predicate}`, text: snippet(value), entity_id: f.subject_entity_id, ...(f.source_url ? { source_url: f.source_url } : {}) },
    fields: [field(f.subject, 1), field(predicate, 1), field(value, 2)],
    importance: f.importance,
  };
}

function chunkDocument(c: ChunkRecord): Document {
  const firstLine = c.text.split('\n', 1)[0] ?? '';
  return { hit: { kind: 'chunk', id: c.id, language: c.language, title: snippet(firstLine).slice(0, 80), text: snippet(c.text) }, fields: [field(c.text, 1)], importance: 0 };
}

/**
 * An in-memory keyword index over a node's entities, facts and chunks. Scores are TF-free
 * BM25-style sums: for each query word a document contains, idf(word) times the weight of the
 * best field holding it (an entity's name weighs most). Ranking is deterministic: score, then
 * importance, then entities before facts before chunks, then id.
 */
export class KnowledgeIndex {
  private readonly documents: Document[];
  private readonly documentFrequency = new Map<string, number>();
  private readonly entities = new Map<string, EntityRecord>();
  private readonly factsByEntity = new Map<string, FactRecord[]>();

  constructor(node: Pick<LiveNode, 'entities' | 'facts' | 'chunks'>) {
    this.documents = [...node.entities.map(entityDocument), ...node.facts.map(factDocument), ...node.chunks.map(chunkDocument)];
    for (const doc of this.documents) {
      const words = new Set<string>();
      for (const f of doc.fields) for (const t of f.tokens) words.add(t);
      for (const w of words) this.documentFrequency.set(w, (this.documentFrequency.get(w) ?? 0) + 1);
    }
    for (const e of node.entities) this.entities.set(e.id, e);
    for (const f of node.facts) {
      const list = this.factsByEntity.get(f.subject_entity_id) ?? [];
      list.push(f);
      this.factsByEntity.set(f.subject_entity_id, list);
    }
    for (const list of this.factsByEntity.values()) list.sort((a, b) => b.importance - a.importance || compare(a.predicate, b.predicate) || compare(a.id, b.id));
  }

  search(query: string, limit: number): SearchHit[] {
    const words = [...new Set(tokenize(query))];
    if (words.length === 0) return [];
    const n = this.documents.length;
    const idf = new Map(words.map((w) => [w, Math.log(1 + (n - (this.documentFrequency.get(w) ?? 0) + 0.5) / ((this.documentFrequency.get(w) ?? 0) + 0.5))]));
    const scored: Array<{ doc: Document; score: number }> = [];
    for (const doc of this.documents) {
      let score = 0;
      for (const w of words) {
        let weight = 0;
        for (const f of doc.fields) if (f.weight > weight && f.tokens.has(w)) weight = f.weight;
        score += weight * idf.get(w)!;
      }
      if (score > 0) scored.push({ doc, score: Math.round(score * 10_000) / 10_000 });
    }
    scored.sort((a, b) => b.score - a.score || b.doc.importance - a.doc.importance || KIND_ORDER[a.doc.hit.kind] - KIND_ORDER[b.doc.hit.kind] || compare(a.doc.hit.id, b.doc.hit.id));
    return scored.slice(0, limit).map(({ doc, score }) => ({ ...doc.hit, score }));
  }

  entity(id: string): EntityRecord | undefined {
    return this.entities.get(id);
  }

  /** The entity's exported facts, most important first. */
  factsOf(entityId: string): FactRecord[] {
    return this.factsByEntity.get(entityId) ?? [];
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
