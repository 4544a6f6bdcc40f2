import { rebuildSearchDocs } from '../../ingest/graph/search-docs.js';
import { GRAPH_DB_OPTIONS } from '../../platform/storage/graph-db.js';
import { openDatabase, type Db } from '../../platform/storage/sqlite.js';
import type { EntityRecord, FactRecord, LiveNode } from './live-node.js';
import { searchKnowledge, type SearchHit } from './search.js';

/**
 * The published node an MCP server answers from, searchable with the management API's ranking:
 * its entities, facts and chunks are loaded into an in-memory graph database (the graph schema
 * of every migration) and indexed by the graph's own code (rebuildSearchDocs), so
 * search_website_knowledge runs the same FTS5 index and the same query (searchKnowledge) over
 * exactly the published records. Everything
 * in a published node is exported already, so the export filters pass every row.
 */
export class KnowledgeIndex {
  private readonly db: Db;
  private readonly entities = new Map<string, EntityRecord>();
  private readonly factsByEntity = new Map<string, FactRecord[]>();

  constructor(node: Pick<LiveNode, 'entities' | 'facts' | 'chunks'> & Partial<Pick<LiveNode, 'sources'>>) {
    this.db = openDatabase(':memory:', GRAPH_DB_OPTIONS);
    loadNode(this.db, node);
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

  /** The best `limit` hits for a query (docs/knowledge.md); none when it holds no searchable word. */
  search(query: string, limit: number): SearchHit[] {
    return searchKnowledge(this.db, { query, limit }).map(({ position: _position, ...hit }) => hit);
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
 * Writes node records into the graph tables the search reads. Columns a node record does not
 * carry get neutral values: they are neither searched nor shown.
 */
function loadNode(
  db: Db,
  node: Pick<LiveNode, 'entities' | 'facts' | 'chunks'> & Partial<Pick<LiveNode, 'sources'>>,
): void {
  const source = db.prepare(
    `INSERT OR IGNORE INTO sources (id, url, canonical_url, title, content_type, last_seen_at, checksum, language, trust) VALUES (?, ?, ?, NULL, '', '', '', '', 0)`,
  );
  const entity =
    db.prepare(`INSERT OR IGNORE INTO entities (id, type, canonical_key, name, language, confidence, provenance_method, source_id, source_url, importance, attributes, item_key)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, 'node')`);
  const fact =
    db.prepare(`INSERT OR IGNORE INTO fact_candidates (fact_id, item_key, ordinal, subject, subject_entity_id, predicate, value, language, confidence, provenance_method, provenance_rank,
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
    for (const f of node.facts) {
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
