import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadVectorExtension } from '../../../src/ingest/embeddings/extension.js';
import { dropOrphanVectors, pendingChunks, writeVectors } from '../../../src/ingest/embeddings/store.js';
import { GRAPH_DB_OPTIONS } from '../../../src/platform/storage/graph-db.js';
import { openDatabase, type Db } from '../../../src/platform/storage/sqlite.js';
import { searchVectors, signWords } from '../../../src/output/knowledge/vector-search.js';
import { ROWID_RANGE } from '../../../src/ingest/graph/search-docs.js';

// In memory: a graph's chunk_vectors as the embeddings job writes them and vector search reads them.
let db: Db;
beforeEach(() => {
  db = openDatabase(':memory:', GRAPH_DB_OPTIONS);
  expect(loadVectorExtension(db)).toBe(true);
});
afterEach(() => db.close());

const addChunk = (id: string, text: string) =>
  db
    .prepare(
      `INSERT INTO chunks (id, item_key, position, language, text, heading_path, tokens_estimate, mention_ids, source_id) VALUES (?, ?, 0, 'en', ?, '[]', 1, '[]', NULL)`,
    )
    .run(id, `page:${id}`, text);
const unit = (values: number[]) => {
  const norm = Math.hypot(...values);
  return Float32Array.from(values, (v) => v / norm);
};
/** A deterministic 64-dimension vector pointing mostly along axis `axis`. */
const along = (axis: number, wobble = 0) =>
  unit(Array.from({ length: 64 }, (_, i) => (i === axis ? 1 : Math.sin(i * 7 + axis + wobble) * 0.2)));

describe('chunk vectors', () => {
  it('signWords gives the same bits as sqlite-vec vec_quantize_binary', () => {
    for (let seed = 0; seed < 20; seed++) {
      const vector = unit(Array.from({ length: 96 }, (_, i) => Math.sin(i * 1.7 + seed * 3.1)));
      const bits = db
        .prepare('SELECT vec_quantize_binary(vec_f32(?))')
        .pluck()
        .get(Buffer.from(vector.buffer)) as Buffer;
      expect(Buffer.from(signWords(vector).buffer)).toEqual(bits);
    }
  });

  it('pending: chunks without a vector, with changed text or of another model; orphans dropped', () => {
    addChunk('chunk_a', 'alpha');
    addChunk('chunk_b', 'beta');
    const first = pendingChunks(db, 'm@64', 10).chunks;
    expect(first.map((c) => c.id)).toEqual(['chunk_a', 'chunk_b']);
    writeVectors(
      db,
      'm@64',
      first.map((chunk, i) => ({ chunk, vector: along(i) })),
    );
    expect(pendingChunks(db, 'm@64', 10).chunks).toEqual([]);
    expect(pendingChunks(db, 'other@64', 10).chunks.map((c) => c.id)).toEqual(['chunk_a', 'chunk_b']);
    db.prepare(`UPDATE chunks SET text = 'alpha two' WHERE id = 'chunk_a'`).run();
    expect(pendingChunks(db, 'm@64', 10).chunks.map((c) => c.id)).toEqual(['chunk_a']);
    // Paged by rowid, at most scanRows rows read per call; `last` undefined once none is left.
    expect(pendingChunks(db, 'other@64', 1, 1).chunks.map((c) => c.id)).toEqual(['chunk_b']);
    const scanned = pendingChunks(db, 'm@64', 10, 1, 1);
    expect(scanned.chunks).toEqual([]);
    expect(scanned.last).toBe(2);
    expect(pendingChunks(db, 'm@64', 10, 2).last).toBeUndefined();
    db.prepare(`DELETE FROM chunks WHERE id = 'chunk_b'`).run();
    expect(dropOrphanVectors(db)).toBe(1);
    expect(db.prepare('SELECT chunk_id FROM chunk_vectors').pluck().all()).toEqual(['chunk_a']);
  });

  it('searchVectors answers the nearest chunks first and follows writes (inserts, updates, deletes)', () => {
    const ids = Array.from({ length: 40 }, (_, i) => `chunk_${String(i).padStart(2, '0')}`);
    for (const id of ids) addChunk(id, id);
    const pending = pendingChunks(db, 'm@64', 100).chunks;
    writeVectors(
      db,
      'm@64',
      pending.slice(0, 30).map((chunk, i) => ({ chunk, vector: along(i) })),
    );
    const rowidOf = (id: string) =>
      (db.prepare('SELECT rowid FROM chunks WHERE id = ?').pluck().get(id) as number) + ROWID_RANGE.chunk.first - 1;
    expect(searchVectors(db, 'm@64', along(7, 0.5), 3)[0]!.rowid).toBe(rowidOf('chunk_07'));
    // Inserted after the bits were read: appended.
    writeVectors(db, 'm@64', [{ chunk: pending[35]!, vector: along(35) }]);
    expect(searchVectors(db, 'm@64', along(35, 0.5), 1)[0]!.rowid).toBe(rowidOf('chunk_35'));
    // Updated: re-read.
    writeVectors(db, 'm@64', [{ chunk: pending[7]!, vector: along(50) }]);
    expect(searchVectors(db, 'm@64', along(50, 0.5), 1)[0]!.rowid).toBe(rowidOf('chunk_07'));
    // Deleted with its chunk: gone.
    const seven = rowidOf('chunk_07');
    db.prepare(`DELETE FROM chunks WHERE id = 'chunk_07'`).run();
    dropOrphanVectors(db);
    expect(searchVectors(db, 'm@64', along(50, 0.5), 5).map((h) => h.rowid)).not.toContain(seven);
    expect(db.prepare('SELECT COUNT(*) FROM chunk_vectors').pluck().get()).toBe(30);
    // Other models' vectors are not searched.
    expect(searchVectors(db, 'other@64', along(3), 5)).toEqual([]);
  });
});
