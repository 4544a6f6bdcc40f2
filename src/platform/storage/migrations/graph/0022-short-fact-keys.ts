import type { Migration } from '../../sqlite.js';

/**
 * Shorter keys in the fact indexes a write dirties all over (issue 40 item 1; docs/graph.md
 * "Random keys cost WAL"). At 100,000 pages a transaction of 2,000 pages rewrote nearly all of
 * fact_candidates' primary key (3,102 of its 3,145 pages of 16 KiB), of search_facts_by_subject
 * (1,425 of 1,822) and of qa_facts (804 of 822): about a third of its WAL frames. Their entries
 * began with a 29-byte text id; they now hold the first 8 bytes of the id's hash
 * (hashedKey, src/platform/storage/hashed-key.ts), which a third as many pages hold, and the
 * queries check the full id beside it (sameId).
 *
 * - fact_candidates is made again without its primary key (fact_id, item_key, ordinal), rowids
 *   kept (they name search documents), its indexes and triggers made again as they were. The
 *   writers never insert a key twice: an item's rows are deleted before its new ones go in, and
 *   an item's ordinals are its facts' positions (contribution-rows.ts), as 0013 relied on for
 *   the contributors. Survivor ranks are written by rowid.
 * - search_facts_by_subject holds the subject's key, for active candidates as before.
 * - qa_facts becomes a rowid table (appended to) with an index on the fact's key; its rows are
 *   unique per item already (contribution-rows.ts).
 *
 * The key expression is written out here, as every released step is a snapshot; the queries
 * build it with hashedKey, and a test checks that they find rows through these indexes.
 */
const KEY = (column: string) => `coalesce(unhex(substr(${column}, -24, 16)), ${column})`;
const FACT = 2 * 2 ** 40;
const queue = (rowid: string) =>
  `BEGIN INSERT INTO search_stale (rowid) SELECT ${rowid} WHERE NOT EXISTS (SELECT 1 FROM search_stale WHERE rowid = ${rowid}); END`;
const FACT_COLUMNS = `fact_id, item_key, ordinal, subject, subject_entity_id, predicate, value, language, confidence,
  provenance_method, provenance_rank, unit, currency, display, importance, freshness, valid_from, valid_until, source_id,
  source_url, last_seen_at, status, rank, seq`;

export const migration: Migration = {
  version: 22,
  name: 'short fact keys',
  up: (db) => {
    db.exec(`
      CREATE TABLE fact_candidates_new (
        fact_id TEXT NOT NULL,
        item_key TEXT NOT NULL,
        ordinal INTEGER NOT NULL,
        subject TEXT NOT NULL,
        subject_entity_id TEXT NOT NULL,
        predicate TEXT NOT NULL,
        value TEXT NOT NULL,
        language TEXT NOT NULL,
        confidence REAL NOT NULL,
        provenance_method TEXT NOT NULL,
        provenance_rank INTEGER NOT NULL,
        unit TEXT,
        currency TEXT,
        display TEXT,
        importance INTEGER NOT NULL,
        freshness TEXT NOT NULL,
        valid_from TEXT,
        valid_until TEXT,
        source_id TEXT,
        source_url TEXT,
        last_seen_at TEXT NOT NULL,
        -- 'active' for the one survivor of fact_id, 'superseded' for the others.
        status TEXT NOT NULL CHECK (status IN ('active','superseded','merged')),
        -- Position in the survivor order (0 = survivor).
        rank INTEGER NOT NULL,
        seq INTEGER NOT NULL DEFAULT 0
      );
      INSERT INTO fact_candidates_new (rowid, ${FACT_COLUMNS}) SELECT rowid, ${FACT_COLUMNS} FROM fact_candidates ORDER BY rowid;
      DROP TABLE fact_candidates;
      ALTER TABLE fact_candidates_new RENAME TO fact_candidates;
      CREATE INDEX fact_candidates_by_fact ON fact_candidates(${KEY('fact_id')});
      CREATE INDEX fact_candidates_by_item ON fact_candidates(item_key);
      CREATE INDEX fact_candidates_by_language ON fact_candidates(language);
      CREATE INDEX fact_candidates_by_seq ON fact_candidates(seq);
      CREATE INDEX search_facts_by_subject ON fact_candidates(${KEY('subject_entity_id')}) WHERE status = 'active';
      CREATE TRIGGER search_fact_deleted AFTER DELETE ON fact_candidates ${queue(`old.rowid + ${FACT}`)};
      CREATE TRIGGER search_fact_updated AFTER UPDATE OF subject, predicate, value, display ON fact_candidates ${queue(`old.rowid + ${FACT}`)};
      CREATE TRIGGER fact_candidate_gone AFTER DELETE ON fact_candidates BEGIN
        INSERT INTO records_gone (seq, kind, id, source_id) VALUES ((SELECT seq FROM graph_state WHERE id = 1), 'fact', old.fact_id, old.source_id);
      END;

      CREATE TABLE qa_facts_new (fact_id TEXT NOT NULL, qa_id TEXT NOT NULL, item_key TEXT NOT NULL);
      INSERT INTO qa_facts_new (fact_id, qa_id, item_key) SELECT fact_id, qa_id, item_key FROM qa_facts ORDER BY item_key, fact_id, qa_id;
      DROP TABLE qa_facts;
      ALTER TABLE qa_facts_new RENAME TO qa_facts;
      CREATE INDEX qa_facts_by_fact ON qa_facts(${KEY('fact_id')});
      CREATE INDEX qa_facts_by_item ON qa_facts(item_key);
    `);
  },
};
