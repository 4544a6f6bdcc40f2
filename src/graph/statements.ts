import type Database from 'better-sqlite3';
import type { Db } from '../storage/sqlite.js';
import { PROVENANCE_RANK, type ProvenanceMethod } from '../contract/provenance.js';

type Stmt = Database.Statement<unknown[]>;

/** Survivor and contributor order of a provenance method (docs/contract.md#fact-rules): lower is stronger; an unknown one last. */
export function provenanceRank(method: ProvenanceMethod): number {
  return PROVENANCE_RANK[method] ?? 9;
}

/**
 * Every statement the graph store runs, prepared once per connection. better-sqlite3 spends
 * more time preparing a statement than running a small one, and a batch of 500 items runs each
 * of these thousands of times.
 */
export interface GraphStatements {
  itemEntityIds: Stmt; itemRelIds: Stmt; itemFactIds: Stmt; itemChunkIds: Stmt; itemQaIds: Stmt; itemRow: Stmt;
  deleteEntityContributors: Stmt; deleteRelContributors: Stmt; deleteFacts: Stmt; deleteChunks: Stmt; deleteQa: Stmt; deleteQaFacts: Stmt; deleteItem: Stmt;
  insertItem: Stmt; insertEntityContributor: Stmt; insertRelContributor: Stmt; insertFact: Stmt; insertChunk: Stmt; insertQa: Stmt; insertQaFact: Stmt;
  bestEntity: Stmt; maxImportance: Stmt; entityExists: Stmt; upsertEntity: Stmt; deleteEntity: Stmt;
  bestRel: Stmt; upsertRel: Stmt; deleteRel: Stmt; reresolveRels: Stmt;
  factCandidates: Stmt; setFactRank: Stmt; survivor: Stmt; editorialOf: Stmt;
  bestSource: Stmt; upsertSource: Stmt; deleteSource: Stmt;
  qaByFact: Stmt; qaByFacts: Stmt; qaValues: Stmt; setQaStale: Stmt;
  rawByContentId: Stmt; markProcessed: Stmt; markFailed: Stmt;
}

const cache = new WeakMap<Db, GraphStatements>();

export function graphStatements(db: Db): GraphStatements {
  let s = cache.get(db);
  if (s) return s;
  // Item keys and record ids are hashes, so inserts land all over the B-trees; the default 2 MiB
  // page cache makes a 100,000-item graph write mostly cache misses. 64 MiB per graph connection.
  if (!db.readonly) db.pragma('cache_size = -65536');
  const p = (sql: string): Stmt => db.prepare(sql);
  s = {
    itemEntityIds: p('SELECT entity_id AS id FROM entity_contributors WHERE item_key = ?'),
    itemRelIds: p('SELECT rel_id AS id FROM relationship_contributors WHERE item_key = ?'),
    itemFactIds: p('SELECT DISTINCT fact_id AS id FROM fact_candidates WHERE item_key = ?'),
    itemChunkIds: p('SELECT id FROM chunks WHERE item_key = ?'),
    itemQaIds: p('SELECT id FROM qa WHERE item_key = ?'),
    itemRow: p('SELECT source_id, primary_entity_id FROM item_contributions WHERE item_key = ?'),

    deleteEntityContributors: p('DELETE FROM entity_contributors WHERE item_key = ?'),
    deleteRelContributors: p('DELETE FROM relationship_contributors WHERE item_key = ?'),
    deleteFacts: p('DELETE FROM fact_candidates WHERE item_key = ?'),
    deleteChunks: p('DELETE FROM chunks WHERE item_key = ?'),
    deleteQa: p('DELETE FROM qa WHERE item_key = ?'),
    deleteQaFacts: p('DELETE FROM qa_facts WHERE item_key = ?'),
    deleteItem: p('DELETE FROM item_contributions WHERE item_key = ?'),

    insertItem: p(`INSERT INTO item_contributions (item_key, primary_entity_id, language, source_id, url, canonical_url, title, content_type, last_seen_at, checksum, warnings)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    insertEntityContributor: p(`INSERT INTO entity_contributors (entity_id, item_key, type, canonical_key, name, language, language_rank, confidence, provenance_method, provenance_rank, importance, attributes, source_id, source_url)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    insertRelContributor: p(`INSERT INTO relationship_contributors (rel_id, item_key, type, from_entity_id, to_ref, to_type, to_canonical_key, language, language_rank, confidence, provenance_method, provenance_rank, source_id, source_url)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    insertFact: p(`INSERT INTO fact_candidates (fact_id, item_key, ordinal, subject, subject_entity_id, predicate, value, language, confidence, provenance_method, provenance_rank,
        unit, currency, display, importance, freshness, valid_from, valid_until, source_id, source_url, last_seen_at, status, rank)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'superseded', -1)`),
    insertChunk: p(`INSERT INTO chunks (id, item_key, position, language, text, heading_path, tokens_estimate, mention_ids, source_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT(id) DO UPDATE SET item_key = excluded.item_key, text = excluded.text, heading_path = excluded.heading_path, tokens_estimate = excluded.tokens_estimate,
        mention_ids = excluded.mention_ids, source_id = excluded.source_id`),
    insertQa: p(`INSERT INTO qa (id, item_key, question, answer, language, fact_ids, entity_ids, fact_values, confidence, provenance_method, stale) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)
      ON CONFLICT(id, item_key) DO UPDATE SET answer = excluded.answer, fact_ids = excluded.fact_ids, entity_ids = excluded.entity_ids, fact_values = excluded.fact_values,
        confidence = excluded.confidence, provenance_method = excluded.provenance_method`),
    insertQaFact: p('INSERT OR IGNORE INTO qa_facts (fact_id, qa_id, item_key) VALUES (?, ?, ?)'),

    bestEntity: p(`SELECT * FROM entity_contributors WHERE entity_id = ? ORDER BY language_rank, provenance_rank, confidence DESC, item_key LIMIT 1`),
    maxImportance: p('SELECT importance FROM entity_contributors WHERE entity_id = ? ORDER BY importance DESC LIMIT 1'),
    entityExists: p('SELECT 1 FROM entities WHERE id = ?'),
    upsertEntity: p(`INSERT INTO entities (id, type, canonical_key, name, language, confidence, provenance_method, source_id, source_url, importance, attributes, item_key)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT(id) DO UPDATE SET name = excluded.name, language = excluded.language, confidence = excluded.confidence, provenance_method = excluded.provenance_method,
        source_id = excluded.source_id, source_url = excluded.source_url, importance = excluded.importance, attributes = excluded.attributes, item_key = excluded.item_key`),
    deleteEntity: p('DELETE FROM entities WHERE id = ?'),

    bestRel: p(`SELECT * FROM relationship_contributors WHERE rel_id = ? ORDER BY language_rank, provenance_rank, confidence DESC, item_key LIMIT 1`),
    upsertRel: p(`INSERT INTO relationships (id, type, from_entity_id, to_ref, to_type, to_canonical_key, to_entity_id, resolution_status, language, confidence, provenance_method, source_id, source_url)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT(id) DO UPDATE SET to_entity_id = excluded.to_entity_id, resolution_status = excluded.resolution_status, language = excluded.language,
        confidence = excluded.confidence, provenance_method = excluded.provenance_method, source_id = excluded.source_id, source_url = excluded.source_url`),
    deleteRel: p('DELETE FROM relationships WHERE id = ?'),
    // Resolved means both ends exist; run for every entity that appeared or disappeared.
    reresolveRels: p(`UPDATE relationships SET
        to_entity_id = CASE WHEN EXISTS (SELECT 1 FROM entities e WHERE e.id = relationships.to_ref) AND EXISTS (SELECT 1 FROM entities e WHERE e.id = relationships.from_entity_id) THEN to_ref ELSE NULL END,
        resolution_status = CASE WHEN EXISTS (SELECT 1 FROM entities e WHERE e.id = relationships.to_ref) AND EXISTS (SELECT 1 FROM entities e WHERE e.id = relationships.from_entity_id) THEN 'resolved' ELSE 'dangling' END
      WHERE to_ref = @id OR from_entity_id = @id`),

    factCandidates: p(`SELECT f.item_key, f.ordinal, f.provenance_rank, f.confidence, f.last_seen_at, f.status, f.rank, ed.pinned AS pinned, ed.pinned_item_key AS pinned_item_key
      FROM fact_candidates f LEFT JOIN editorial ed ON ed.record_id = f.fact_id WHERE f.fact_id = ?`),
    setFactRank: p('UPDATE fact_candidates SET status = ?, rank = ? WHERE fact_id = ? AND item_key = ? AND ordinal = ?'),
    survivor: p(`SELECT value FROM fact_candidates WHERE fact_id = ? AND status = 'active' LIMIT 1`),
    editorialOf: p('SELECT hidden, pinned, pinned_item_key FROM editorial WHERE record_id = ?'),

    bestSource: p('SELECT * FROM item_contributions WHERE source_id = ? ORDER BY last_seen_at DESC, item_key LIMIT 1'),
    upsertSource: p(`INSERT INTO sources (id, url, canonical_url, title, content_type, last_seen_at, checksum, language, trust) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT(id) DO UPDATE SET url = excluded.url, canonical_url = excluded.canonical_url, title = excluded.title, content_type = excluded.content_type,
        last_seen_at = excluded.last_seen_at, checksum = excluded.checksum, language = excluded.language, trust = excluded.trust`),
    deleteSource: p('DELETE FROM sources WHERE id = ?'),

    qaByFact: p('SELECT qa_id, item_key FROM qa_facts WHERE fact_id = ?'),
    qaByFacts: p('SELECT DISTINCT qa_id, item_key FROM qa_facts WHERE fact_id IN (SELECT value FROM json_each(?))'),
    qaValues: p('SELECT fact_values, stale FROM qa WHERE id = ? AND item_key = ?'),
    setQaStale: p('UPDATE qa SET stale = ? WHERE id = ? AND item_key = ?'),

    rawByContentId: p(`SELECT raw_content_id, item_type, item_id, body, received_at FROM raw_items WHERE raw_content_id = ? AND state = 'pending'`),
    markProcessed: p(`UPDATE raw_items SET state = 'processed', processed_at = ?, last_error = NULL WHERE raw_content_id = ? AND state = 'pending'`),
    markFailed: p(`UPDATE raw_items SET state = 'failed', processed_at = ?, last_error = ? WHERE raw_content_id = ? AND state = 'pending'`),
  };
  cache.set(db, s);
  return s;
}
