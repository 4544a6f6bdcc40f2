import { loadVectorExtension, modelKeyOf, textHashOf, writeVectors } from '../../ingest/embeddings/index.js';
import { rebuildSearchDocs } from '../../ingest/graph/index.js';
import { GRAPH_DB_OPTIONS, openDatabase, type Db } from '../../platform/storage/index.js';
import { fusedSearch } from './hybrid-search.js';
import type { EntityRecord, FactRecord, LiveNode, NodeVectors } from './live-node.js';
import { searchKnowledge, type SearchHit } from './search.js';
import { hasVectors } from './vector-search.js';

type IndexedNode = Pick<LiveNode, 'entities' | 'facts' | 'chunks'> & Partial<Pick<LiveNode, 'sources' | 'vectors'>>;

/** A vector or hybrid search of the index: the query's vector, made by the model of the node's vectors. */
export interface VectorQuery {
  mode: 'vector' | 'hybrid';
  vector: Float32Array;
}

/**
 * The published node an MCP server answers from, searchable with the management API's ranking:
 * its entities, facts and chunks are loaded into an in-memory graph database (the graph schema
 * of every migration) and indexed by the graph's own code (rebuildSearchDocs), so
 * search_website_knowledge runs the same FTS5 index and the same query (searchKnowledge) over
 * exactly the published records. Everything
 * in a published node is exported already, so the export filters pass every row. The node's
 * vectors (embeddings.f32) go into chunk_vectors as the embedding job writes them, at the first
 * vector or hybrid search: an index searched by keyword only never pays for them.
 */
export class KnowledgeIndex {
  private readonly db: Db;
  private readonly entities = new Map<string, EntityRecord>();
  private readonly factsByEntity = new Map<string, FactRecord[]>();
  private readonly chunkTexts = new Map<string, string>();
  private pendingVectors: NodeVectors | undefined;
  private vectorsLoaded: boolean | undefined;
  /** The model and dimensions of the node's vectors; undefined when the node carries none. */
  readonly vectorModel: { model: string; dimensions: number } | undefined;

  constructor(node: IndexedNode) {
    this.db = openDatabase(':memory:', GRAPH_DB_OPTIONS);
    loadNode(this.db, node);
    for (const c of node.chunks) this.chunkTexts.set(c.id, c.text);
    this.pendingVectors = node.vectors;
    this.vectorModel = node.vectors && { model: node.vectors.model, dimensions: node.vectors.dimensions };
    for (const e of node.entities) this.entities.set(e.id, e);
    for (const f of node.facts) {
      if (f.subject_entity_id === undefined) continue;
      const list = this.factsByEntity.get(f.subject_entity_id) ?? [];
      list.push(f);
      this.factsByEntity.set(f.subject_entity_id, list);
    }
    for (const list of this.factsByEntity.values())
      list.sort((a, b) => b.importance - a.importance || compare(a.predicate, b.predicate) || compare(a.id, b.id));
  }

  /**
   * True when vector and hybrid searches can run: the node carries vectors and sqlite-vec loads
   * (the first call loads the vectors).
   */
  hasVectors(): boolean {
    if (this.vectorsLoaded === undefined) {
      const vectors = this.pendingVectors;
      this.pendingVectors = undefined;
      this.vectorsLoaded =
        vectors !== undefined &&
        loadVectors(this.db, vectors, this.chunkTexts) &&
        hasVectors(this.db, modelKeyOf(vectors));
    }
    return this.vectorsLoaded;
  }

  /**
   * The best `limit` hits for a query (docs/knowledge.md): by keyword, or with `vectors` by
   * vector or hybrid ranking (hasVectors() must hold); none when nothing matches.
   */
  search(query: string, limit: number, vectors?: VectorQuery): SearchHit[] {
    const hits =
      vectors && this.vectorModel && this.hasVectors()
        ? fusedSearch(this.db, {
            mode: vectors.mode,
            query,
            vector: vectors.vector,
            modelKey: modelKeyOf(this.vectorModel),
            offset: 0,
            limit,
          })
        : searchKnowledge(this.db, { query, limit });
    return hits.map(({ position: _position, ...hit }) => hit);
  }

  entity(id: string): EntityRecord | undefined {
    return this.entities.get(id);
  }

  /** The entity's exported facts, most important first. */
  factsOf(entityId: string): FactRecord[] {
    return this.factsByEntity.get(entityId) ?? [];
  }

  close(): void {
    this.db.close();
  }
}

/**
 * Writes the node's vectors into chunk_vectors with the embedding job's own writer (the sign bits
 * by sqlite-vec, the text hash of the chunk as published); false when sqlite-vec cannot load.
 */
function loadVectors(db: Db, vectors: NodeVectors, chunkTexts: ReadonlyMap<string, string>): boolean {
  if (!loadVectorExtension(db)) return false;
  const { data, dimensions } = vectors;
  // Read as little-endian whatever the machine, and from any offset (a Buffer's need not be aligned).
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const batch = [];
  for (const [row, id] of vectors.chunkIds.entries()) {
    const text = chunkTexts.get(id);
    if (text === undefined) continue;
    const vector = new Float32Array(dimensions);
    for (let i = 0, o = row * dimensions * 4; i < dimensions; i++, o += 4) vector[i] = view.getFloat32(o, true);
    batch.push({ chunk: { rowid: 0, id, text, hash: textHashOf(text) }, vector });
  }
  writeVectors(db, modelKeyOf(vectors), batch);
  return true;
}

/**
 * Writes node records into the graph tables the search reads. Columns a node record does not
 * carry get neutral values: they are neither searched nor shown.
 */
function loadNode(db: Db, node: IndexedNode): void {
  const source = db.prepare(
    `INSERT OR IGNORE INTO sources (id, url, canonical_url, title, content_type, last_seen_at, checksum, language, trust) VALUES (?, ?, ?, NULL, '', '', '', '', 0)`,
  );
  const entity =
    db.prepare(`INSERT OR IGNORE INTO entities (id, type, canonical_key, name, language, confidence, provenance_method, source_id, source_url, importance, attributes, item_key)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, 'node')`);
  const fact =
    db.prepare(`INSERT INTO fact_candidates (fact_id, item_key, ordinal, subject, subject_entity_id, predicate, value, language, confidence, provenance_method, provenance_rank,
      unit, currency, display, importance, freshness, valid_from, valid_until, source_id, source_url, last_seen_at, status, rank)
    VALUES (?, 'node', 0, ?, ?, ?, ?, ?, ?, ?, 0, NULL, NULL, ?, ?, 'stable', NULL, NULL, NULL, ?, '', 'active', 0)`);
  const chunk = db.prepare(
    `INSERT OR IGNORE INTO chunks (id, item_key, position, language, text, heading_path, tokens_estimate, mention_ids, source_id) VALUES (?, 'node', 0, ?, ?, '[]', ?, ?, ?)`,
  );
  db.transaction(() => {
    for (const s of node.sources ?? []) source.run(s.id, s.url, s.canonical_url ?? null);
    for (const e of node.entities)
      entity.run(
        e.id,
        e.type,
        e.id,
        e.name,
        e.language,
        e.confidence ?? 0,
        e.provenance_method ?? '',
        e.source_id ?? null,
        e.source_url ?? null,
        JSON.stringify(e.attributes ?? {}),
      );
    // fact_candidates has no unique key (graph migration 0022): a fact id given twice keeps its first line.
    const factIds = new Set<string>();
    for (const f of node.facts) {
      if (factIds.has(f.id)) continue;
      factIds.add(f.id);
      fact.run(
        f.id,
        f.subject,
        f.subject_entity_id ?? '',
        f.predicate,
        JSON.stringify(f.value),
        f.language,
        f.confidence ?? 0,
        f.provenance_method ?? '',
        f.display ?? null,
        f.importance,
        f.source_url ?? null,
      );
    }
    for (const c of node.chunks)
      chunk.run(
        c.id,
        c.language,
        c.text,
        c.tokens_estimate ?? 0,
        JSON.stringify(c.entity_ids ?? []),
        c.source_id ?? null,
      );
  })();
  rebuildSearchDocs(db);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
