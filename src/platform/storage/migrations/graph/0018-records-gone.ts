import type { Migration } from '../../sqlite.js';

/**
 * What a compile of what changed needs to know of rows that are gone (docs/publishing.md "A
 * compile of what changed"): a deleted fact candidate or entity leaves no row to carry a newer
 * sequence, so records_gone keeps its id with the write sequence of the transaction that deleted
 * it (every writer of items raises graph_state.seq before it deletes). A fact candidate keeps its
 * source too: another fact of that source may cite a source line that changed. Rows are appended
 * in sequence order, and only deletes write them (an item written again, or removed): a graph's
 * first build writes none. Rows older than a retention are pruned by the writer, which raises
 * graph_state.gone_floor to the oldest sequence still whole: a compile whose state is older reads
 * every fact.
 */
export const migration: Migration = {
  version: 18,
  name: 'records gone',
  up: (db) => {
    db.exec(`
      ALTER TABLE graph_state ADD COLUMN gone_floor INTEGER NOT NULL DEFAULT 0;
      CREATE TABLE records_gone (seq INTEGER NOT NULL, kind TEXT NOT NULL CHECK (kind IN ('fact','entity')), id TEXT NOT NULL, source_id TEXT);
      CREATE INDEX records_gone_by_seq ON records_gone(seq);
      CREATE TRIGGER fact_candidate_gone AFTER DELETE ON fact_candidates BEGIN
        INSERT INTO records_gone (seq, kind, id, source_id) VALUES ((SELECT seq FROM graph_state WHERE id = 1), 'fact', old.fact_id, old.source_id);
      END;
      CREATE TRIGGER entity_gone AFTER DELETE ON entities BEGIN
        INSERT INTO records_gone (seq, kind, id, source_id) VALUES ((SELECT seq FROM graph_state WHERE id = 1), 'entity', old.id, NULL);
      END;
    `);
  },
};
