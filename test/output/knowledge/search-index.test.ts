import { describe, expect, it } from 'vitest';
import { textHashOf } from '../../../src/ingest/embeddings/index.js';
import { KnowledgeIndex } from '../../../src/output/knowledge/search-index.js';
import { signWords } from '../../../src/output/knowledge/vector-search.js';
import type { Db } from '../../../src/platform/storage/index.js';
import { DIMENSIONS, embed } from './embeddings-server.js';

const entity = (id: string, name: string, description = '') => ({
  id,
  type: 'Product',
  name,
  language: 'en',
  attributes: { description },
  source_url: `https://shop.example/${id}`,
});
const fact = (
  id: string,
  subjectId: string,
  predicate: string,
  value: unknown,
  importance: number,
  display?: string,
) => ({
  id,
  subject: 'Hand Grinder',
  predicate,
  value,
  language: 'en',
  subject_entity_id: subjectId,
  importance,
  ...(display ? { display } : {}),
});

describe('the MCP knowledge index (a published node, searched with the management API ranking)', () => {
  it('ranks a published node with the same FTS5 ranking: names over values over chunk text, all terms required', () => {
    const index = new KnowledgeIndex({
      entities: [
        entity('entity_b', 'Hand Grinder'),
        entity('entity_a', 'Kettle', 'pairs well with a hand grinder'),
        entity('entity_c', 'Hand Towel'),
      ],
      facts: [fact('fact_1', 'entity_b', 'price', 259, 5, '259.00 EUR')],
      chunks: [{ id: 'chunk_1', text: 'A hand grinder has 40 steps.', language: 'en', source_id: 'src_1' }],
      sources: [{ id: 'src_1', url: 'https://shop.example/grinder' }],
    });
    try {
      const hits = index.search('hand grinder', 10);
      // The entity's name outranks the fact (subject only) and the chunk; the towel lacks "grinder";
      // entity attributes are not searched (a hidden fact's value may sit there).
      expect(hits.map((h) => h.id)).toEqual(['entity_b', 'fact_1', 'chunk_1']);
      expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
      expect(hits[2]).toMatchObject({
        kind: 'chunk',
        source_url: 'https://shop.example/grinder',
        snippet: 'A <mark>hand</mark> <mark>grinder</mark> has 40 steps.',
      });
      expect(index.search('259.00 EUR', 1)[0]).toMatchObject({
        kind: 'fact',
        id: 'fact_1',
        title: 'Hand Grinder: price',
        entity_id: 'entity_b',
        snippet: '<mark>259.00</mark> <mark>EUR</mark>',
      });
      expect(index.search('towe', 5).map((h) => h.id)).toEqual(['entity_c']);
      expect(index.search('   ', 5)).toEqual([]);
      expect(index.search('a" OR b*', 5)).toEqual([]);
    } finally {
      index.close();
    }
  });

  it("lists an entity's facts by importance, then predicate", () => {
    const index = new KnowledgeIndex({
      entities: [entity('entity_b', 'Grinder')],
      facts: [
        fact('fact_2', 'entity_b', 'sku', 'C40', 2),
        fact('fact_1', 'entity_b', 'price', 259, 5),
        fact('fact_3', 'entity_b', 'brand', 'Comandante', 2),
      ],
      chunks: [],
    });
    expect(index.factsOf('entity_b').map((f) => f.id)).toEqual(['fact_1', 'fact_3', 'fact_2']);
    expect(index.factsOf('entity_x')).toEqual([]);
    index.close();
  });
});

describe("the MCP knowledge index with the node's vectors (embeddings.f32)", () => {
  const chunk = (id: string, text: string) => ({ id, text, language: 'en', source_id: `src_${id}` });
  const chunks = [
    chunk('chunk_0a', 'Book cheap flights to Lisbon with our travel desk.'),
    chunk('chunk_0b', 'Clean the burrs of your coffee grinder every month.'),
    chunk('chunk_0c', 'Hotel rooms near the river in Porto, breakfast included.'),
  ];
  const sources = chunks.map((c) => ({ id: c.source_id, url: `https://example.com/${c.id}` }));
  /** embeddings.f32 as the compiler writes it, at an odd offset of its buffer (a Buffer's need not be aligned). */
  const f32 = (rows: number[][]) => {
    const body = Buffer.alloc(rows.length * DIMENSIONS * 4 + 1).subarray(1);
    rows.forEach((row, r) => row.forEach((v, i) => body.writeFloatLE(v, (r * DIMENSIONS + i) * 4)));
    return body;
  };
  // chunk_0z is listed but not a chunk of the node: left out, as a vector of a chunk gone.
  const ids = ['chunk_0a', 'chunk_0b', 'chunk_0c', 'chunk_0z'];
  const vectors = {
    model: 'hash-bow',
    dimensions: DIMENSIONS,
    chunkIds: ids,
    data: f32([...chunks.map((c) => embed(c.text)), embed('cheap airfare')]),
  };
  const query = (text: string) => Float32Array.from(embed(text));

  it('loads the vectors into chunk_vectors as the embedding job writes them, at the first vector search', () => {
    const index = new KnowledgeIndex({ entities: [], facts: [], chunks, sources, vectors });
    try {
      const db = (index as unknown as { db: Db }).db;
      expect(index.vectorModel).toEqual({ model: 'hash-bow', dimensions: DIMENSIONS });
      expect(db.prepare('SELECT COUNT(*) FROM chunk_vectors').pluck().get()).toBe(0);
      expect(index.hasVectors()).toBe(true);
      const rows = db
        .prepare('SELECT chunk_id, text_hash, model, vector, bits FROM chunk_vectors ORDER BY chunk_id')
        .all() as Array<{ chunk_id: string; text_hash: Buffer; model: string; vector: Buffer; bits: Buffer }>;
      expect(rows.map((r) => r.chunk_id)).toEqual(['chunk_0a', 'chunk_0b', 'chunk_0c']);
      rows.forEach((row, i) => {
        expect(row.model).toBe(`hash-bow@${DIMENSIONS}`);
        expect(row.text_hash.equals(textHashOf(chunks[i]!.text))).toBe(true);
        expect(row.vector.equals(vectors.data.subarray(i * DIMENSIONS * 4, (i + 1) * DIMENSIONS * 4))).toBe(true);
        // The sign bits the coarse pass scans: one per dimension.
        expect(Buffer.from(signWords(query(chunks[i]!.text)).buffer).equals(row.bits)).toBe(true);
      });
    } finally {
      index.close();
    }
  });

  it('finds by meaning the chunk keyword search misses, in vector and hybrid modes', () => {
    const index = new KnowledgeIndex({ entities: [], facts: [], chunks, sources, vectors });
    try {
      expect(index.search('inexpensive airfare', 5)).toEqual([]);
      const vector = index.search('inexpensive airfare', 1, { mode: 'vector', vector: query('inexpensive airfare') });
      expect(vector).toEqual([
        expect.objectContaining({ kind: 'chunk', id: 'chunk_0a', source_url: 'https://example.com/chunk_0a' }),
      ]);
      expect(vector[0]!.score).toBeGreaterThan(0.3);
      const hybrid = index.search('grinder airfare', 5, { mode: 'hybrid', vector: query('grinder airfare') });
      expect(
        hybrid
          .map((h) => h.id)
          .slice(0, 2)
          .sort(),
      ).toEqual(['chunk_0a', 'chunk_0b']);
    } finally {
      index.close();
    }
  });

  it('has no vectors when the node carries none, and searches by keyword then', () => {
    const index = new KnowledgeIndex({ entities: [], facts: [], chunks, sources });
    try {
      expect(index.vectorModel).toBeUndefined();
      expect(index.hasVectors()).toBe(false);
      expect(index.search('grinder', 5, { mode: 'vector', vector: query('grinder') }).map((h) => h.id)).toEqual([
        'chunk_0b',
      ]);
    } finally {
      index.close();
    }
  });
});
