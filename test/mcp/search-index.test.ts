import { describe, expect, it } from 'vitest';
import { KnowledgeIndex, tokenize } from '../../src/knowledge/search-index.js';

const entity = (id: string, name: string, description = '') => ({ id, type: 'Product', name, language: 'en', attributes: { description } });
const fact = (id: string, subjectId: string, predicate: string, value: unknown, importance: number, display?: string) => ({ id, subject: 'S', predicate, value, language: 'en', subject_entity_id: subjectId, importance, ...(display ? { display } : {}) });

describe('knowledge search index', () => {
  it('tokenizes case- and accent-insensitively and drops one-letter words but not digits', () => {
    expect(tokenize('Café au Lait, a 5 € treat')).toEqual(['cafe', 'au', 'lait', '5', 'treat']);
  });

  it('ranks name matches above description and text matches', () => {
    const index = new KnowledgeIndex({
      entities: [entity('entity_b', 'Hand Grinder'), entity('entity_a', 'Kettle', 'pairs well with a hand grinder'), entity('entity_c', 'Hand Towel')],
      facts: [fact('fact_1', 'entity_b', 'price', 259, 5, '259.00 EUR')],
      chunks: [{ id: 'chunk_1', text: 'The grinder has 40 steps.', language: 'en' }],
    });
    const hits = index.search('hand grinder', 10);
    // A name holding one query word outweighs a description holding both.
    expect(hits.map((h) => h.id)).toEqual(['entity_b', 'entity_c', 'entity_a', 'chunk_1']);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
    expect(index.search('259.00 EUR', 1)[0]).toMatchObject({ kind: 'fact', id: 'fact_1', text: '259.00 EUR', entity_id: 'entity_b' });
    expect(index.search('   ', 5)).toEqual([]);
  });

  it('lists an entity\'s facts by importance, then predicate', () => {
    const index = new KnowledgeIndex({ entities: [entity('entity_b', 'Grinder')], facts: [fact('fact_2', 'entity_b', 'sku', 'C40', 2), fact('fact_1', 'entity_b', 'price', 259, 5), fact('fact_3', 'entity_b', 'brand', 'Comandante', 2)], chunks: [] });
    expect(index.factsOf('entity_b').map((f) => f.id)).toEqual(['fact_1', 'fact_3', 'fact_2']);
    expect(index.factsOf('entity_x')).toEqual([]);
  });
});
