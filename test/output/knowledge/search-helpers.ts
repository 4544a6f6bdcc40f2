import { searchRecordOf } from '../../../src/ingest/graph/search-docs.js';
import type { Db } from '../../../src/platform/storage/sqlite.js';

/** One document of the search index: its FTS5 rowid, the record it names, and what FTS5 holds for it. */
export interface IndexedDocument {
  rowid: number;
  kind: string | null;
  recordId: string | null;
  /** [column, offset, term] of every token (search_fts is contentless: read through fts5vocab). */
  terms: string;
}

/**
 * Every document the index holds (FTS5's docsize table lists
 * them), rowid order. A document whose record is gone names none.
 */
export function readIndexedDocuments(db: Db): IndexedDocument[] {
  db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.search_terms USING fts5vocab(main, search_fts, instance)`);
  const terms = db
    .prepare(
      `SELECT json_group_array(json_array(t.col, t.offset, t.term)) FROM (SELECT * FROM temp.search_terms t WHERE t.doc = ? ORDER BY t.col, t.offset, t.term) t`,
    )
    .pluck();
  return (db.prepare('SELECT id FROM search_fts_docsize ORDER BY id').pluck().all() as number[]).map((rowid) => {
    const record = searchRecordOf(db, rowid);
    return { rowid, kind: record?.kind ?? null, recordId: record?.recordId ?? null, terms: terms.get(rowid) as string };
  });
}
