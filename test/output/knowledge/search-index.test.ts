import { describe, expect, it } from 'vitest';
import { KnowledgeIndex } from '../../../src/output/knowledge/search-index.js';

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
