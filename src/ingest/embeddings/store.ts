import { createHash } from 'node:crypto';
import type { Db } from '../../platform/storage/index.js';
import { vectorBytes } from './provider.js';

/** A chunk whose vector is missing, stale (its text changed) or of another model. */
export interface PendingChunk {
  rowid: number;
  id: string;
  text: string;
  hash: Buffer;
}

/** The hash a vector is kept with: sha256 of the chunk's text, first 16 bytes. */
export function textHashOf(text: string): Buffer {
  return createHash('sha256').update(text).digest().subarray(0, 16);
}

/** Chunk rows one pendingChunks call reads at most: the job yields to the event loop between calls. */
export const SCAN_ROWS = 2_000;

/**
 * The chunks to embed after rowid `after`, in rowid order: at most `limit`, among at most
 * `scanRows` rows read, and the rowid of the last row read (undefined: none was left, the pass
 * is over). Every chunk's text is read and hashed: chunk rows are deleted and re-inserted on each
 * re-ingest of their item, so neither a rowid nor a timestamp tells a changed text from an
 * unchanged one.
 */
export function pendingChunks(
  db: Db,
  modelKey: string,
  limit: number,
  after = 0,
  scanRows = SCAN_ROWS,
): { chunks: PendingChunk[]; last: number | undefined } {
  const chunks: PendingChunk[] = [];
  const rows = db
    .prepare(
      `SELECT c.rowid, c.id, c.text, v.text_hash AS stored, v.model FROM chunks c LEFT JOIN chunk_vectors v ON v.chunk_id = c.id WHERE c.rowid > ? ORDER BY c.rowid LIMIT ?`,
    )
    .all(after, scanRows) as Array<{
    rowid: number;
    id: string;
    text: string;
    stored: Buffer | null;
    model: string | null;
  }>;
  let last: number | undefined;
  for (const row of rows) {
    last = row.rowid;
    const hash = textHashOf(row.text);
    if (row.stored && row.model === modelKey && hash.equals(row.stored)) continue;
    chunks.push({ rowid: row.rowid, id: row.id, text: row.text, hash });
    if (chunks.length >= limit) break;
  }
  return { chunks, last };
}

/** Chunks with a current vector and chunks in all. */
export function vectorCoverage(db: Db, modelKey: string): { embedded: number; chunks: number } {
  return db
    .prepare(
      `SELECT (SELECT COUNT(*) FROM chunk_vectors v JOIN chunks c ON c.id = v.chunk_id WHERE v.model = ?) AS embedded, (SELECT COUNT(*) FROM chunks) AS chunks`,
    )
    .get(modelKey) as { embedded: number; chunks: number };
}

/**
 * Stores one batch of vectors (sqlite-vec loaded: its vec_quantize_binary makes the sign bits).
 * A chunk whose text changed since it was read keeps the hash of the text embedded, so the next
 * run embeds it again.
 */
export function writeVectors(
  db: Db,
  modelKey: string,
  batch: ReadonlyArray<{ chunk: PendingChunk; vector: Float32Array }>,
): void {
  const upsert = db.prepare(
    `INSERT INTO chunk_vectors (chunk_id, text_hash, model, vector, bits)
     SELECT @id, @hash, @model, @vector, vec_quantize_binary(vec_f32(@vector)) WHERE EXISTS (SELECT 1 FROM chunks WHERE id = @id)
     ON CONFLICT (chunk_id) DO UPDATE SET text_hash = excluded.text_hash, model = excluded.model, vector = excluded.vector, bits = excluded.bits`,
  );
  db.transaction(() => {
    for (const { chunk, vector } of batch)
      upsert.run({ id: chunk.id, hash: chunk.hash, model: modelKey, vector: vectorBytes(vector) });
  })();
}

/** Deletes the vectors of chunks that no longer exist (an item re-ingested with fewer chunks); returns how many. */
export function dropOrphanVectors(db: Db): number {
  return db
    .prepare('DELETE FROM chunk_vectors WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.id = chunk_vectors.chunk_id)')
    .run().changes;
}
