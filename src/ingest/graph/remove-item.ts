import { createHash } from 'node:crypto';
import { sameId, type Db } from '../../platform/storage/index.js';
import { trustScore, type WebsiteInfo } from '../../control/records/index.js';
import { deleteItemsRows } from './apply-contribution.js';
import { emptyTouched, rankFactCandidates, recomputeTouched } from './recompute.js';
import { rebuildSearchDocs, refreshSearchDocs } from './search-docs.js';
import { graphStatements } from './statements.js';

export interface RemoveItemOptions {
  /**
   * gdpr_erasure: leave no trace of the item in the graph: its derived records, the editorial
   * state of records only it produced (and originalValue of those it shared), and its raw_items
   * body and row. Default false (a plain tombstone).
   */
  erase?: boolean;
  /**
   * With erase: keep a bare raw_items row (type, id, state 'tombstoned', reason; no url, body or
   * checksum) so ingestion refuses to re-create the item (docs/decisions.md). Default false: the
   * row is deleted.
   */
  keepTombstone?: boolean;
  /**
   * With erase: VACUUM and truncate the WAL afterwards so freed pages holding the item's text are
   * gone from the file too. Default true; ignored inside an open transaction (call compactGraph
   * once after a batch of erasures).
   */
  compact?: boolean;
}

/** Splits an item key `${type}:${id}` (the id may itself contain colons). */
export function splitItemKey(itemKey: string): { type: string; id: string } {
  const cut = itemKey.indexOf(':');
  return cut < 0 ? { type: itemKey, id: '' } : { type: itemKey.slice(0, cut), id: itemKey.slice(cut + 1) };
}

/**
 * Removes one item's contribution (a tombstone) and re-derives what it named: entities only it
 * contributed disappear, relationships pointing at them go back to dangling, fact survivors are
 * re-chosen and Q&A made from changed facts go stale. Returns whether the item had contributed.
 */
export function removeItem(db: Db, site: WebsiteInfo, itemKey: string, options: RemoveItemOptions = {}): boolean {
  const s = graphStatements(db);
  const { type, id } = splitItemKey(itemKey);
  const run = db.transaction(() => {
    const touched = emptyTouched();
    const recordIds = new Set<string>();
    const chunkIds = (s.itemChunkIds.all(itemKey) as Array<{ id: string }>).map((r) => r.id);
    if (options.erase) {
      for (const stmt of [s.itemEntityIds, s.itemRelIds, s.itemFactIds, s.itemChunkIds, s.itemQaIds]) {
        for (const r of stmt.all(itemKey) as Array<{ id: string }>) recordIds.add(r.id);
      }
    }
    const had = deleteItemsRows(db, [itemKey], touched).size > 0;
    dropChunkVectors(db, chunkIds);
    rankFactCandidates(db, touched.facts);
    recomputeTouched(db, touched, trustScore(site.verification.method, site.verification.state));
    refreshSearchDocs(db, touched);
    if (options.erase) {
      eraseEditorial(db, recordIds);
      if (options.keepTombstone) {
        db.prepare(
          `UPDATE raw_items SET state = 'tombstoned', tombstone_reason = 'gdpr_erasure', body = NULL, url = '', canonical_url = NULL, checksum = '',
          language = NULL, connector_id = NULL, last_error = NULL WHERE item_type = ? AND item_id = ?`,
        ).run(type, id);
      } else {
        db.prepare('DELETE FROM raw_items WHERE item_type = ? AND item_id = ?').run(type, id);
      }
    } else {
      db.prepare(
        `UPDATE raw_items SET state = 'tombstoned', tombstone_reason = COALESCE(tombstone_reason, 'deleted'), body = NULL WHERE item_type = ? AND item_id = ? AND state != 'tombstoned'`,
      ).run(type, id);
    }
    return had;
  });
  const had = run();
  if (options.erase && (options.compact ?? true) && !db.inTransaction) compactGraph(db);
  return had;
}

/**
 * The vectors of the item's chunks go with them (graph migration 0011): a vector is derived from
 * the chunk's text, so a delete or an erasure leaves none behind. Plain SQL, no sqlite-vec needed.
 */
function dropChunkVectors(db: Db, chunkIds: readonly string[]): void {
  if (chunkIds.length === 0) return;
  const drop = db.prepare(
    'DELETE FROM chunk_vectors WHERE chunk_id = @id AND NOT EXISTS (SELECT 1 FROM chunks WHERE id = @id)',
  );
  for (const id of chunkIds) drop.run({ id });
}

/** Editorial rows of records that no longer exist go; shared records lose their originalValue. */
function eraseEditorial(db: Db, recordIds: Set<string>): void {
  const exists =
    db.prepare(`SELECT EXISTS (SELECT 1 FROM entities WHERE id = @id) OR EXISTS (SELECT 1 FROM fact_candidates f WHERE ${sameId('f.fact_id', '@id')})
    OR EXISTS (SELECT 1 FROM relationships WHERE id = @id) OR EXISTS (SELECT 1 FROM chunks WHERE id = @id) OR EXISTS (SELECT 1 FROM qa WHERE id = @id) AS present`);
  const drop = db.prepare('DELETE FROM editorial WHERE record_id = ?');
  const blank = db.prepare('UPDATE editorial SET original_value = NULL WHERE record_id = ?');
  for (const id of [...recordIds].sort()) {
    if ((exists.get({ id }) as { present: number }).present === 1) blank.run(id);
    else drop.run(id);
  }
}

/**
 * Rewrites the database file without free pages and empties the WAL, so text deleted by an
 * erasure does not linger in unused pages. The search index is merged into one segment first:
 * FTS5 only marks a deleted document's terms as deleted until its segments are merged. Costs a
 * full copy of the file: for erasures only.
 *
 * Search documents are keyed by their records' rowids (graph migration 0006), and SQLite only
 * promises that VACUUM keeps the rowids of INTEGER PRIMARY KEY tables. Today it keeps those of
 * the record tables too; should a version renumber them, the index is rebuilt from the records
 * rather than left pointing at the wrong rows. `vacuum` stands in for VACUUM in tests (one that renumbers).
 */
export function compactGraph(db: Db, options: { vacuum?: (db: Db) => void } = {}): void {
  db.exec(`INSERT INTO search_fts (search_fts) VALUES ('optimize')`);
  const before = recordRowidsDigest(db);
  (options.vacuum ?? ((d: Db) => d.exec('VACUUM')))(db);
  if (recordRowidsDigest(db) !== before) rebuildSearchDocs(db);
  if (!db.memory) db.pragma('wal_checkpoint(TRUNCATE)');
}

/** The tables whose rowids name search documents, each with the key of a row. */
const SEARCHED_RECORDS = [
  ['chunks', 'id'],
  ['entities', 'id'],
  ['fact_candidates', `fact_id || char(31) || item_key || char(31) || ordinal`],
] as const;

/** A sha256 over every (rowid, key) pair of the searched record tables, in rowid order. */
function recordRowidsDigest(db: Db): string {
  const hash = createHash('sha256');
  for (const [table, key] of SEARCHED_RECORDS) {
    hash.update(`${table}\n`);
    for (const [rowid, id] of db
      .prepare(`SELECT rowid, ${key} FROM ${table} ORDER BY rowid`)
      .raw()
      .iterate() as Iterable<[number, string]>)
      hash.update(`${rowid} ${id}\n`);
  }
  return hash.digest('hex');
}
