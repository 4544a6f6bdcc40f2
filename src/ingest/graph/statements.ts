import type Database from 'better-sqlite3';
import { GRAPH_DB_OPTIONS, openDatabase, sameId, type Db } from '../../platform/storage/index.js';
import { PROVENANCE_RANK, type ProvenanceMethod } from '../../platform/contract/index.js';
import { FAMILY_ROOTS } from '../extract/index.js';

type Stmt = Database.Statement<unknown[]>;

/**
 * Survivor and contributor order of a provenance method
 * (docs/contract.md#fact-rules): lower is stronger; an unknown one last.
 */
export function provenanceRank(method: ProvenanceMethod): number {
  return PROVENANCE_RANK[method] ?? 9;
}

/** `IN (...)` over a JSON array bound as one parameter: one statement for a whole batch of ids. */
const IDS = 'SELECT value FROM json_each(?)';

/**
 * Every statement the graph store runs, prepared once per connection. The writers work on a
 * batch of items at a time: most statements take a JSON array of ids (IDS) and do for all of
 * them what a statement per id did before (docs/graph.md "Throughput").
 */
export interface GraphStatements {
  /* One item (ingest's erasure summary, removeItem's erase). */
  itemEntityIds: Stmt;
  itemRelIds: Stmt;
  itemFactIds: Stmt;
  itemChunkIds: Stmt;
  itemQaIds: Stmt;
  itemRow: Stmt;
  /* A batch of items, by item key. */
  existingItems: Stmt;
  itemsSourceIds: Stmt;
  itemsEntityIds: Stmt;
  itemsRelIds: Stmt;
  itemsFactIds: Stmt;
  itemsChunkIds: Stmt;
  deleteEntityContributors: Stmt;
  deleteRelContributors: Stmt;
  deleteFacts: Stmt;
  deleteChunks: Stmt;
  deleteQa: Stmt;
  deleteQaFacts: Stmt;
  deleteItems: Stmt;
  /**
   * Raises graph_state.seq above its last value and the clock (ms, the parameter): the sequence of
   * the rows written next (chunks, entities; graph migrations 0015 and 0016).
   */
  nextWriteSeq: Stmt;
  pruneRecordsGone: Stmt;
  raiseGoneFloor: Stmt;
  /** Whether a source's trust is other than the parameter (twice): two ranges of sources_by_trust (migration 0012). */
  otherTrust: Stmt;
  /** Sets such sources' trust to the parameter (three times), stamped with the write sequence (migration 0021). */
  setTrust: Stmt;
  /* Re-deriving records, by record id. */
  upsertSources: Stmt;
  deleteSources: Stmt;
  existingEntities: Stmt;
  upsertEntities: Stmt;
  deleteEntities: Stmt;
  upsertRels: Stmt;
  deleteRels: Stmt;
  reresolveRels: Stmt;
  factCandidates: Stmt;
  factPins: Stmt;
  setFactRank: Stmt;
  refreshQaStale: Stmt;
  /* raw_items, by raw content id. */
  pendingRaw: Stmt;
  pendingIds: Stmt;
  markProcessed: Stmt;
  markFailed: Stmt;
}

const cache = new WeakMap<Db, GraphStatements>();

/**
 * The pending raw_items rows among a JSON array of raw content
 * ids (also read by the extraction worker, extract-worker.ts).
 */
export const PENDING_RAW_SQL = `SELECT raw_content_id, item_type, item_id, body, received_at FROM raw_items WHERE raw_content_id IN (${IDS}) AND state = 'pending'`;

/** Resolved means both ends exist. */
const RESOLVED = (rel: string) =>
  `EXISTS (SELECT 1 FROM entities e WHERE e.id = ${rel}.to_ref) AND EXISTS (SELECT 1 FROM entities e WHERE e.id = ${rel}.from_entity_id)`;

/**
 * A graph file opened for the ingest writer thread: its statements are prepared before it is
 * used in a transaction, so its statement journals stay in memory (graphStatements).
 */
export function openGraphWriter(file: string): Db {
  const db = openDatabase(file, GRAPH_DB_OPTIONS);
  graphStatements(db);
  fitWriterCache(db);
  return db;
}

const MIB = 1024;
/** The graph writer's smallest page cache, in KiB: what a connection of the graph has (graphStatements). */
export const WRITER_CACHE_FLOOR_KIB = 64 * MIB;
/** The graph writer's page cache, in KiB, for a graph file of `fileBytes`: a quarter of it, 64 to 256 MiB. */
export function writerCacheKib(fileBytes: number): number {
  return Math.min(256 * MIB, Math.max(WRITER_CACHE_FLOOR_KIB, Math.floor(fileBytes / 4 / 1024)));
}

/**
 * Sizes the graph writer's page cache to its file (writerCacheKib), asked before each write
 * transaction as the file grows. The writer's inserts land all over the indexes (hashed keys),
 * about a seventh of a graph file: a cache that holds them reads little back from the OS, where
 * 64 MiB holds a fraction of them from a few tens of thousands of pages (docs/performance.md).
 */
export function fitWriterCache(db: Db): void {
  const bytes =
    (db.pragma('page_count', { simple: true }) as number) * (db.pragma('page_size', { simple: true }) as number);
  const kib = writerCacheKib(bytes);
  if (db.pragma('cache_size', { simple: true }) !== -kib) db.pragma(`cache_size = -${kib}`);
}

export function graphStatements(db: Db): GraphStatements {
  let s = cache.get(db);
  if (s) return s;
  // Item keys and record ids are hashes, so inserts land all over the B-trees; the default 2 MiB
  // page cache makes a 100,000-item graph write mostly cache misses. 64 MiB per graph connection
  // (the ingest writer thread's grows with its file: fitWriterCache).
  // A batch's multi-row statements journal into memory, not temporary files (A/B: docs/performance.md).
  // SQLite may refuse that change inside a transaction: a connection first used in one (an editorial
  // change's) keeps the default; the ingest writer thread's is first used outside one (openGraphWriter).
  if (!db.readonly) {
    db.pragma(`cache_size = -${WRITER_CACHE_FLOOR_KIB}`);
    if (!db.inTransaction) db.pragma('temp_store = MEMORY');
  }
  const p = (sql: string): Stmt => db.prepare(sql);
  s = {
    itemEntityIds: p('SELECT entity_id AS id FROM entity_contributors WHERE item_key = ?'),
    itemRelIds: p('SELECT rel_id AS id FROM relationship_contributors WHERE item_key = ?'),
    itemFactIds: p('SELECT DISTINCT fact_id AS id FROM fact_candidates WHERE item_key = ?'),
    itemChunkIds: p('SELECT id FROM chunks WHERE item_key = ?'),
    itemQaIds: p('SELECT id FROM qa WHERE item_key = ?'),
    itemRow: p('SELECT source_id, primary_entity_id FROM item_contributions WHERE item_key = ?'),

    existingItems: p(`SELECT item_key FROM item_contributions WHERE item_key IN (${IDS})`).pluck(),
    itemsSourceIds: p(`SELECT DISTINCT source_id FROM item_contributions WHERE item_key IN (${IDS})`).pluck(),
    itemsEntityIds: p(`SELECT DISTINCT entity_id FROM entity_contributors WHERE item_key IN (${IDS})`).pluck(),
    itemsRelIds: p(`SELECT DISTINCT rel_id FROM relationship_contributors WHERE item_key IN (${IDS})`).pluck(),
    itemsFactIds: p(`SELECT DISTINCT fact_id FROM fact_candidates WHERE item_key IN (${IDS})`).pluck(),
    itemsChunkIds: p(`SELECT id FROM chunks WHERE item_key IN (${IDS})`).pluck(),
    deleteEntityContributors: p(`DELETE FROM entity_contributors WHERE item_key IN (${IDS})`),
    deleteRelContributors: p(`DELETE FROM relationship_contributors WHERE item_key IN (${IDS})`),
    deleteFacts: p(`DELETE FROM fact_candidates WHERE item_key IN (${IDS})`),
    deleteChunks: p(`DELETE FROM chunks WHERE item_key IN (${IDS})`),
    deleteQa: p(`DELETE FROM qa WHERE item_key IN (${IDS})`),
    deleteQaFacts: p(`DELETE FROM qa_facts WHERE item_key IN (${IDS})`),
    deleteItems: p(`DELETE FROM item_contributions WHERE item_key IN (${IDS})`),
    nextWriteSeq: p('UPDATE graph_state SET seq = max(seq + 1, ?) WHERE id = 1'),
    pruneRecordsGone: p('DELETE FROM records_gone WHERE seq < ?'),
    raiseGoneFloor: p('UPDATE graph_state SET gone_floor = max(gone_floor, ?) WHERE id = 1'),
    otherTrust: p('SELECT EXISTS (SELECT 1 FROM sources WHERE trust < ? OR trust > ?)').pluck(),
    setTrust: p(
      'UPDATE sources SET trust = ?, seq = (SELECT seq FROM graph_state WHERE id = 1) WHERE trust < ? OR trust > ?',
    ),

    // A source is taken from its newest contributor (last_seen_at, then item key).
    upsertSources:
      p(`INSERT INTO sources (id, url, canonical_url, title, content_type, last_seen_at, checksum, language, trust, seq)
      SELECT t.value, i.url, i.canonical_url, i.title, i.content_type, i.last_seen_at, i.checksum, i.language, ?, (SELECT seq FROM graph_state WHERE id = 1)
      FROM json_each(?) t JOIN item_contributions i ON i.rowid = (SELECT b.rowid FROM item_contributions b WHERE ${sameId('b.source_id', 't.value')}
        ORDER BY b.last_seen_at DESC, b.item_key LIMIT 1)
      WHERE true
      ON CONFLICT(id) DO UPDATE SET url = excluded.url, canonical_url = excluded.canonical_url, title = excluded.title, content_type = excluded.content_type,
        last_seen_at = excluded.last_seen_at, checksum = excluded.checksum, language = excluded.language, trust = excluded.trust, seq = excluded.seq`),
    deleteSources: p(
      `DELETE FROM sources WHERE id IN (${IDS}) AND NOT EXISTS (SELECT 1 FROM item_contributions i WHERE ${sameId('i.source_id', 'sources.id')})`,
    ),

    existingEntities: p(`SELECT e.id FROM json_each(?) t JOIN entities e ON e.id = t.value`).pluck(),
    // An entity is taken from its best contributor (docs/graph.md "Merge rules"); importance is the maximum over all.
    // Among equal statements the entity's own page (importance 5) describes it, not a page naming it (a post naming its
    // author). The type is the most specific one stated (MusicEvent over
    // Event: one id per type family, src/ingest/extract/identity.ts).
    upsertEntities:
      p(`INSERT INTO entities (id, type, canonical_key, name, language, confidence, provenance_method, source_id, source_url, importance, attributes, item_key, seq)
      SELECT c.entity_id,
        COALESCE((SELECT s.type FROM entity_contributors s WHERE ${sameId('s.entity_id', 'c.entity_id')} AND s.type NOT IN (${FAMILY_ROOTS.map((r) => `'${r}'`).join(', ')})
          ORDER BY s.language_rank, s.provenance_rank, s.confidence DESC, s.importance DESC, s.item_key LIMIT 1), c.type),
        c.canonical_key, c.name, c.language, c.confidence, c.provenance_method, c.source_id, c.source_url,
        (SELECT MAX(m.importance) FROM entity_contributors m WHERE ${sameId('m.entity_id', 'c.entity_id')}), c.attributes, c.item_key,
        (SELECT seq FROM graph_state WHERE id = 1)
      FROM json_each(?) t JOIN entity_contributors c ON c.rowid = (SELECT b.rowid FROM entity_contributors b WHERE ${sameId('b.entity_id', 't.value')}
        ORDER BY b.language_rank, b.provenance_rank, b.confidence DESC, b.importance DESC, b.item_key LIMIT 1)
      WHERE true
      ON CONFLICT(id) DO UPDATE SET type = excluded.type, name = excluded.name, language = excluded.language, confidence = excluded.confidence, provenance_method = excluded.provenance_method,
        source_id = excluded.source_id, source_url = excluded.source_url, importance = excluded.importance, attributes = excluded.attributes, item_key = excluded.item_key,
        seq = excluded.seq
      RETURNING id`).pluck(),
    deleteEntities: p(
      `DELETE FROM entities WHERE id IN (${IDS}) AND NOT EXISTS (SELECT 1 FROM entity_contributors c WHERE ${sameId('c.entity_id', 'entities.id')}) RETURNING id`,
    ).pluck(),

    // Resolution is computed once per edge (a materialised CTE), then written to both columns. The
    // target's type is the best contributor's too: one target id covers a type family (src/ingest/extract/identity.ts).
    upsertRels: p(`WITH best AS MATERIALIZED (
        SELECT c.*, ${RESOLVED('c')} AS resolved
        FROM json_each(?) t JOIN relationship_contributors c ON c.rowid = (SELECT b.rowid FROM relationship_contributors b WHERE ${sameId('b.rel_id', 't.value')}
          ORDER BY b.language_rank, b.provenance_rank, b.confidence DESC, b.item_key LIMIT 1))
      INSERT INTO relationships (id, type, from_entity_id, to_ref, to_type, to_canonical_key, to_entity_id, resolution_status, language, confidence, provenance_method, source_id, source_url, seq)
      SELECT rel_id, type, from_entity_id, to_ref, to_type, to_canonical_key, CASE WHEN resolved THEN to_ref ELSE NULL END, CASE WHEN resolved THEN 'resolved' ELSE 'dangling' END,
        language, confidence, provenance_method, source_id, source_url, (SELECT seq FROM graph_state WHERE id = 1)
      FROM best WHERE true
      ON CONFLICT(id) DO UPDATE SET to_type = excluded.to_type, to_entity_id = excluded.to_entity_id, resolution_status = excluded.resolution_status, language = excluded.language,
        confidence = excluded.confidence, provenance_method = excluded.provenance_method, source_id = excluded.source_id, source_url = excluded.source_url, seq = excluded.seq`),
    deleteRels: p(
      `DELETE FROM relationships WHERE id IN (${IDS}) AND NOT EXISTS (SELECT 1 FROM relationship_contributors c WHERE ${sameId('c.rel_id', 'relationships.id')})`,
    ),
    // Run for the entities that appeared or disappeared. Only edges whose resolution changes are written: most were
    // just upserted by this batch, resolved against its entities already (to_entity_id always goes with
    // resolution_status).
    reresolveRels: p(`WITH checked AS MATERIALIZED (
        SELECT r.rowid AS rid, ${RESOLVED('r')} AS resolved, r.resolution_status = 'resolved' AS was
        FROM relationships r WHERE r.rowid IN (
          SELECT edge.rowid FROM json_each(?) t JOIN relationships edge ON ${sameId('edge.to_ref', 't.value')}
          UNION SELECT edge.rowid FROM json_each(?) t JOIN relationships edge ON ${sameId('edge.from_entity_id', 't.value')}))
      UPDATE relationships SET
        to_entity_id = CASE WHEN checked.resolved THEN relationships.to_ref ELSE NULL END,
        resolution_status = CASE WHEN checked.resolved THEN 'resolved' ELSE 'dangling' END,
        seq = (SELECT seq FROM graph_state WHERE id = 1)
      FROM checked WHERE relationships.rowid = checked.rid AND checked.resolved != checked.was`),

    // A join, not IN: IN first copies the thousands of ids of a batch into a temporary index.
    factCandidates:
      p(`SELECT f.rowid, f.fact_id, f.item_key, f.ordinal, f.provenance_rank, f.confidence, f.last_seen_at, f.status, f.rank
      FROM json_each(?) t JOIN fact_candidates f ON ${sameId('f.fact_id', 't.value')}`),
    // A join, not IN, here too: each id is one lookup in editorial's
    // key, where IN first built a temporary index of them all.
    factPins: p(
      `SELECT e.record_id, e.pinned_item_key FROM json_each(?) t JOIN editorial e ON e.record_id = t.value WHERE e.pinned = 1`,
    ),
    // Stamps the row with the transaction's write sequence (migration 0017): its fact's line may change.
    setFactRank: p(
      `UPDATE fact_candidates SET status = ?, rank = ?, seq = (SELECT seq FROM graph_state WHERE id = 1) WHERE rowid = ?`,
    ),

    // Q&A citing the facts (first parameter) or made by the items (second): stale when a cited fact has no survivor, a
    // survivor whose value differs from the one the answer was made from, or is hidden.
    refreshQaStale: p(`WITH keys AS (
        SELECT q.qa_id AS id, q.item_key FROM json_each(?) t JOIN qa_facts q ON ${sameId('q.fact_id', 't.value')}
        UNION SELECT id, item_key FROM qa WHERE item_key IN (${IDS})),
      checked AS MATERIALIZED (
        SELECT q.id, q.item_key, q.stale AS was, EXISTS (SELECT 1 FROM json_each(q.fact_values) v
          WHERE NOT EXISTS (SELECT 1 FROM fact_candidates f WHERE ${sameId('f.fact_id', 'v.key')} AND f.status = 'active' AND f.value = v.value)
            OR EXISTS (SELECT 1 FROM editorial ed WHERE ed.record_id = v.key AND ed.hidden = 1)) AS stale
        FROM keys JOIN qa q ON q.id = keys.id AND q.item_key = keys.item_key)
      UPDATE qa SET stale = checked.stale, seq = (SELECT seq FROM graph_state WHERE id = 1) FROM checked
      WHERE qa.id = checked.id AND qa.item_key = checked.item_key AND checked.stale != checked.was`),

    pendingRaw: p(PENDING_RAW_SQL),
    // Joins, not IN (see factCandidates): the ids of a batch are distinct. CROSS JOIN keeps the ids as the outer loop
    // (the planner otherwise scans the pending rows by raw_items' state index and probes the ids for each, far slower:
    // docs/graph.md).
    pendingIds: p(
      `SELECT r.raw_content_id FROM json_each(?) t CROSS JOIN raw_items r ON r.raw_content_id = t.value WHERE r.state = 'pending'`,
    ).pluck(),
    markProcessed: p(
      `UPDATE raw_items SET state = 'processed', processed_at = ?, last_error = NULL WHERE raw_content_id IN (${IDS}) AND state = 'pending'`,
    ),
    markFailed: p(
      `UPDATE raw_items SET state = 'failed', processed_at = ?, last_error = ? WHERE raw_content_id = ? AND state = 'pending' RETURNING url`,
    ),
  };
  cache.set(db, s);
  return s;
}

/** A table's INSERT: its columns, and the row tuple (placeholders, constants). */
interface TableInsert {
  head: string;
  tuple: string;
}

const insert = (head: string, placeholders: number, constants = ''): TableInsert => ({
  head,
  tuple: `(${Array.from({ length: placeholders }, () => '?').join(', ')}${constants})`,
});

/** Column order of the rows built by contribution-rows.ts. */
export const INSERTS = {
  items: insert(
    'INSERT INTO item_contributions (item_key, primary_entity_id, language, source_id, url, canonical_url, title, content_type, last_seen_at, checksum, warnings)',
    11,
  ),
  entityContributors: insert(
    `INSERT INTO entity_contributors (entity_id, item_key, type, canonical_key, name, language, language_rank, confidence, provenance_method, provenance_rank,
    importance, attributes, source_id, source_url)`,
    14,
  ),
  relContributors: insert(
    `INSERT INTO relationship_contributors (rel_id, item_key, type, from_entity_id, to_ref, to_type, to_canonical_key, language, language_rank, confidence,
    provenance_method, provenance_rank, source_id, source_url)`,
    14,
  ),
  // seq: as chunks' (migration 0017).
  facts: insert(
    `INSERT INTO fact_candidates (fact_id, item_key, ordinal, subject, subject_entity_id, predicate, value, language, confidence, provenance_method, provenance_rank,
    unit, currency, display, importance, freshness, valid_from, valid_until, source_id, source_url, last_seen_at, status, rank, seq)`,
    23,
    ', (SELECT seq FROM graph_state WHERE id = 1)',
  ),
  // seq: the write sequence nextWriteSeq raised in this transaction (migration 0015).
  chunks: insert(
    'INSERT INTO chunks (id, item_key, position, language, text, heading_path, tokens_estimate, mention_ids, source_id, seq)',
    9,
    ', (SELECT seq FROM graph_state WHERE id = 1)',
  ),
  // seq: as chunks' (migration 0019).
  qa: insert(
    'INSERT INTO qa (id, item_key, question, answer, language, fact_ids, entity_ids, fact_values, confidence, provenance_method, stale, seq)',
    10,
    ', 0, (SELECT seq FROM graph_state WHERE id = 1)',
  ),
  qaFacts: insert('INSERT INTO qa_facts (fact_id, qa_id, item_key)', 3),
} as const;

const prepared = new WeakMap<Db, Map<TableInsert, Stmt>>();

/**
 * Inserts rows into a table, one prepared statement run per row: measured against multi-row
 * VALUES statements (32 rows each), this costs less, as SQLite runs a multi-row VALUES through a
 * co-routine and the values must be copied into one array first.
 */
export function insertRows(db: Db, table: TableInsert, rows: readonly unknown[][]): void {
  let statements = prepared.get(db);
  if (!statements) prepared.set(db, (statements = new Map()));
  let stmt = statements.get(table);
  if (!stmt) statements.set(table, (stmt = db.prepare(`${table.head} VALUES ${table.tuple}`)));
  for (const row of rows) stmt.run(row);
}
