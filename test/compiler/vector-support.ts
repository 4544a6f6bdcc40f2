import { buildGraphFromItems, type BuiltGraph } from '../../src/ingest/graph/index.js';
import { textHashOf } from '../../src/ingest/embeddings/index.js';
import type { Fixture } from '../../src/compiler/index.js';
import type { Db } from '../../src/platform/storage/index.js';

export const MODEL = 'test-embed';
export const DIMENSIONS = 8;
export const EMBEDDINGS = { model: MODEL, dimensions: DIMENSIONS, key: `${MODEL}@${DIMENSIONS}` };

/** A vector made from a chunk id alone: the same id gives the same vector in any graph; 1/3 is not exact in float32. */
export function vectorOf(chunkId: string): Float32Array {
  const seed = parseInt(chunkId.slice(-6), 16);
  return Float32Array.from({ length: DIMENSIONS }, (_, i) => ((seed % 997) - 498) / 3 + i / 7);
}

/**
 * Stores a vector for every chunk of `db` (as the embeddings job does, without sqlite-vec: the
 * bits are zeros), under `model` (default EMBEDDINGS.key); `stale` chunk ids get the hash of
 * another text. Returns the chunk ids seeded, sorted.
 */
export function seedVectors(db: Db, options: { model?: string; stale?: string[]; only?: number } = {}): string[] {
  const chunks = db.prepare('SELECT id, text FROM chunks ORDER BY id').all() as Array<{ id: string; text: string }>;
  const insert = db.prepare(
    'INSERT INTO chunk_vectors (chunk_id, text_hash, model, vector, bits) VALUES (?, ?, ?, ?, zeroblob(1))',
  );
  const seeded = chunks.slice(0, options.only ?? chunks.length);
  for (const { id, text } of seeded) {
    const vector = vectorOf(id);
    const hash = textHashOf(options.stale?.includes(id) ? text + ' (before)' : text);
    insert.run(id, hash, options.model ?? EMBEDDINGS.key, Buffer.from(vector.buffer));
  }
  return seeded.map((c) => c.id);
}

export function fixtureGraph(fixture: Fixture, file?: string): BuiltGraph {
  return buildGraphFromItems(fixture.items, fixture.site, {
    receivedAt: fixture.buildTime,
    editorial: fixture.editorial,
    ...(file === undefined ? {} : { file }),
  });
}

/** The rows of an embeddings.f32 body, `dimensions` floats each. */
export function rowsOf(body: Buffer, dimensions = DIMENSIONS): Float32Array[] {
  const rows: Float32Array[] = [];
  for (let offset = 0; offset < body.length; offset += dimensions * 4)
    rows.push(Float32Array.from({ length: dimensions }, (_, i) => body.readFloatLE(offset + i * 4)));
  return rows;
}
