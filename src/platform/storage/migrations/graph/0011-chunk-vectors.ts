import type { Migration } from '../../sqlite.js';

/**
 * Embedding vectors of chunks (docs/knowledge.md "Modes"). Plain tables, no virtual table: a
 * connection without the sqlite-vec extension (a write worker, another platform) still opens,
 * migrates, deletes and erases them. Keyed by chunk id, which is stable across re-ingests of an
 * item (the chunk rows themselves are deleted and re-inserted), with the hash of the text and the
 * model it was embedded from, so only changed text is embedded again. `vector` is little-endian
 * float32; `bits` its sign bits (sqlite-vec's vec_quantize_binary), which the coarse pass of a
 * vector search scans. vector_state.generation changes with every update or delete in
 * chunk_vectors: a search's in-memory copy of the bits is reloaded when it differs, and only
 * extended with the rows above its highest rowid after inserts (the common write).
 */
export const migration: Migration = {
  version: 11,
  name: 'chunk vectors',
  up: (db) => {
    db.exec(`
      CREATE TABLE chunk_vectors (
        chunk_id TEXT NOT NULL UNIQUE,
        text_hash BLOB NOT NULL,
        model TEXT NOT NULL,
        vector BLOB NOT NULL,
        bits BLOB NOT NULL
      );
      CREATE TABLE vector_state (id INTEGER PRIMARY KEY CHECK (id = 1), generation INTEGER NOT NULL);
      INSERT INTO vector_state (id, generation) VALUES (1, 0);
      CREATE TRIGGER chunk_vectors_update AFTER UPDATE ON chunk_vectors BEGIN
        UPDATE vector_state SET generation = generation + 1 WHERE id = 1;
      END;
      CREATE TRIGGER chunk_vectors_delete AFTER DELETE ON chunk_vectors BEGIN
        UPDATE vector_state SET generation = generation + 1 WHERE id = 1;
      END;
    `);
  },
};
