import { ftsRowidSql } from '../../ingest/graph/index.js';
import { loadVectorExtension, vectorBytes } from '../../ingest/embeddings/index.js';
import type { Db } from '../../platform/storage/index.js';

/**
 * Vector search over a graph's chunk_vectors (graph migration 0011, docs/knowledge.md "Ranking").
 * Two passes: a coarse one over every vector's sign bits (hamming distance, in memory), then the
 * exact cosine distance (sqlite-vec's vec_distance_cosine) over the best candidates of the first.
 * A scan of every float vector in SQLite (a BLOB table or vec0) cost many times the keyword
 * search; the bits are a 32nd of the floats and scan in memory (figures: docs/performance.md).
 */

/**
 * Candidates the exact pass reranks per hit asked for, at least MIN_CANDIDATES: the exact pass
 * costs per candidate (recall of this choice: docs/performance.md).
 */
const CANDIDATES_PER_HIT = 4;
const MIN_CANDIDATES = 200;

/** The sign bits of every vector of one model, as read at `generation` (vector_state) up to `lastRowid`. */
interface BitsIndex {
  generation: number;
  modelKey: string;
  lastRowid: number;
  count: number;
  /** chunk_vectors rowids, in the order of `words` (room beyond `count` for rows to come). */
  rowids: Float64Array;
  /** 32-bit words of each vector's bits, `wordsPer` per vector. */
  words: Uint32Array;
  wordsPer: number;
}

const indexes = new WeakMap<Db, BitsIndex>();

/**
 * The vectors' bits as they stand. An update or a delete (vector_state's generation) re-reads
 * them all; rows inserted since (rowids above the last one read) are appended, so a website
 * being embedded batch by batch is not re-read per batch.
 */
function bitsIndexOf(db: Db, modelKey: string): BitsIndex {
  const state = db
    .prepare('SELECT generation, (SELECT COALESCE(MAX(rowid), 0) FROM chunk_vectors) AS lastRowid FROM vector_state')
    .get() as { generation: number; lastRowid: number };
  let index = indexes.get(db);
  if (!index || index.generation !== state.generation || index.modelKey !== modelKey) {
    index = {
      generation: state.generation,
      modelKey,
      lastRowid: 0,
      count: 0,
      rowids: new Float64Array(0),
      words: new Uint32Array(0),
      wordsPer: 0,
    };
    indexes.set(db, index);
  }
  if (state.lastRowid > index.lastRowid) append(db, index, state.lastRowid);
  return index;
}

function append(db: Db, index: BitsIndex, upTo: number): void {
  const rows = db
    .prepare('SELECT rowid, bits FROM chunk_vectors WHERE rowid > ? AND rowid <= ? AND model = ? ORDER BY rowid')
    .raw()
    .all(index.lastRowid, upTo, index.modelKey) as Array<[number, Buffer]>;
  index.lastRowid = upTo;
  if (rows.length === 0) return;
  const bytesPer = rows[0]![1].byteLength;
  if (index.count === 0) index.wordsPer = Math.ceil(bytesPer / 4);
  const { wordsPer } = index;
  const needed = index.count + rows.length;
  if (needed > index.rowids.length) {
    // Grown by half again: appends after each embedding batch copy the whole only now and then.
    const capacity = Math.max(needed, Math.ceil(index.rowids.length * 1.5));
    const rowids = new Float64Array(capacity);
    rowids.set(index.rowids.subarray(0, index.count));
    const words = new Uint32Array(capacity * wordsPer);
    words.set(index.words.subarray(0, index.count * wordsPer));
    index.rowids = rowids;
    index.words = words;
  }
  // Copied byte by byte into the words: a Buffer's offset in Node's pool need not be 4-byte
  // aligned for a Uint32Array over it.
  const bytes = new Uint8Array(index.words.buffer);
  for (const [rowid, bits] of rows) {
    if (bits.byteLength !== bytesPer) continue;
    index.rowids[index.count] = rowid;
    bytes.set(bits, index.count * wordsPer * 4);
    index.count++;
  }
}

/** True when the graph holds vectors of this model and sqlite-vec is loaded: vector and hybrid modes can run. */
export function hasVectors(db: Db, modelKey: string): boolean {
  return loadVectorExtension(db) && bitsIndexOf(db, modelKey).count > 0;
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** The sign bits of a vector, as vec_quantize_binary makes them: bit i of byte j is dimension 8j + i, set when > 0. */
export function signWords(vector: Float32Array): Uint32Array {
  const bytes = new Uint8Array(Math.ceil(vector.length / 32) * 4);
  for (let i = 0; i < vector.length; i++) if (vector[i]! > 0) bytes[i >> 3]! |= 1 << (i & 7);
  return new Uint32Array(bytes.buffer);
}

/** One chunk a vector search found: its search document (FTS5 rowid) and cosine distance (0 is the same direction). */
export interface VectorHit {
  rowid: number;
  distance: number;
}

/**
 * The `limit` chunks nearest to `query`, nearest first (ties: newer chunk first). Vectors of
 * chunks gone since (an item re-ingested with fewer chunks, before the next embedding pass drops
 * them) are skipped.
 */
export function searchVectors(db: Db, modelKey: string, query: Float32Array, limit: number): VectorHit[] {
  const index = bitsIndexOf(db, modelKey);
  const count = index.count;
  if (count === 0 || limit <= 0) return [];
  const { words, wordsPer } = index;
  const q = signWords(query);
  if (q.length !== wordsPer) return [];
  // Hamming distances, then the cut-off that keeps about `wanted` of them (a counting pass, no sort).
  const distances = new Uint16Array(count);
  const histogram = new Uint32Array(wordsPer * 32 + 1);
  for (let i = 0, o = 0; i < count; i++, o += wordsPer) {
    let d = 0;
    for (let w = 0; w < wordsPer; w++) d += popcount(words[o + w]! ^ q[w]!);
    distances[i] = d;
    histogram[d]!++;
  }
  const wanted = Math.max(MIN_CANDIDATES, limit * CANDIDATES_PER_HIT);
  let cut = 0;
  for (let seen = 0; cut < histogram.length && seen + histogram[cut]! <= wanted; cut++) seen += histogram[cut]!;
  const candidates: number[] = [];
  for (let i = 0; i < count; i++) if (distances[i]! < cut) candidates.push(index.rowids[i]!);
  // The cut-off's own distance fills the rest, in rowid order (deterministic).
  for (let i = 0; i < count && candidates.length < wanted; i++)
    if (distances[i] === cut) candidates.push(index.rowids[i]!);
  return db
    .prepare(
      `SELECT ${ftsRowidSql('chunk', 'c')} AS rowid, vec_distance_cosine(vec_f32(v.vector), vec_f32(@query)) AS distance
       FROM json_each(@candidates) j JOIN chunk_vectors v ON v.rowid = j.value JOIN chunks c ON c.id = v.chunk_id
       ORDER BY distance, c.rowid DESC LIMIT @limit`,
    )
    .all({ query: vectorBytes(query), candidates: JSON.stringify(candidates), limit }) as VectorHit[];
}
