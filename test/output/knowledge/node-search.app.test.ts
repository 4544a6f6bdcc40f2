import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmbeddingsSettings } from '../../../src/ingest/embeddings/index.js';
import { searchNode } from '../../../src/output/knowledge/node-search.js';
import { KnowledgeIndex } from '../../../src/output/knowledge/search-index.js';
import { DIMENSIONS, embed, startEmbeddingsServer, type EmbeddingsServer } from './embeddings-server.js';

// The modes of search_website_knowledge over a published node, its query embedded by a local
// OpenAI-compatible server: which mode runs, and why a mode that cannot run is refused.
const TEXTS = {
  chunk_0000000a: 'Book cheap flights to Lisbon with our travel desk.',
  chunk_0000000b: 'Clean the burrs of your coffee grinder every month.',
};
const chunks = Object.entries(TEXTS).map(([id, text]) => ({ id, text, language: 'en' }));
const data = Buffer.concat(chunks.map((c) => Buffer.from(Float32Array.from(embed(c.text)).buffer)));
const vectors = { model: 'hash-bow', dimensions: DIMENSIONS, chunkIds: chunks.map((c) => c.id), data };

let provider: EmbeddingsServer;
let settings: EmbeddingsSettings;
let withVectors: KnowledgeIndex;
let without: KnowledgeIndex;

beforeAll(async () => {
  provider = await startEmbeddingsServer();
  settings = { url: provider.url, model: 'hash-bow', dimensions: DIMENSIONS, batchSize: 8, timeoutMs: 5_000 };
  withVectors = new KnowledgeIndex({ entities: [], facts: [], chunks, vectors });
  without = new KnowledgeIndex({ entities: [], facts: [], chunks });
});
afterAll(async () => {
  withVectors?.close();
  without?.close();
  await provider?.close();
});

const ids = (answer: Awaited<ReturnType<typeof searchNode>>) =>
  'hits' in answer ? answer.hits.map((h) => h.id) : answer;

describe('searchNode: the modes of a published node', () => {
  it('searches hybrid by default where vectors can run, and each mode asked for', async () => {
    const base = { limit: 5, embeddings: settings, planAllowsVectors: true };
    const hybrid = await searchNode(withVectors, { ...base, query: 'inexpensive airfare' });
    expect(hybrid).toMatchObject({ mode: 'hybrid' });
    expect(ids(hybrid)[0]).toBe('chunk_0000000a');
    const vector = await searchNode(withVectors, { ...base, query: 'inexpensive airfare', mode: 'vector', limit: 1 });
    expect(vector).toMatchObject({ mode: 'vector' });
    expect(ids(vector)).toEqual(['chunk_0000000a']);
    const keyword = await searchNode(withVectors, { ...base, query: 'inexpensive airfare', mode: 'keyword' });
    expect(keyword).toEqual({ mode: 'keyword', hits: [] });
  });

  it('refuses vector mode where it cannot run, saying what to fix; hybrid and the default answer keyword hits', async () => {
    const cases: Array<[KnowledgeIndex, Partial<Parameters<typeof searchNode>[1]>, RegExp]> = [
      [withVectors, { planAllowsVectors: false }, /plan lacks cap.advanced or cap.embeddings/],
      [without, {}, /carries no vectors \(its embeddings-manifest.json is not_computed\): publish again/],
      [
        withVectors,
        { embeddings: undefined },
        /embeddings are off on this server.*set embeddingsUrl, embeddingsModel and embeddingsDimensions to the model of the node's vectors, hash-bow \(256 dimensions\)/,
      ],
      [
        without,
        { embeddings: undefined },
        /embeddings are off on this server.*embeddingsDimensions \(docs\/knowledge.md "Settings"\)/,
      ],
      [
        withVectors,
        { embeddings: { ...settings, model: 'other-model' } },
        /vectors are of hash-bow \(256 dimensions\) but the configured provider embeds with other-model \(256 dimensions\)/,
      ],
      [
        withVectors,
        { embeddings: { ...settings, dimensions: 128 } },
        /but the configured provider embeds with hash-bow \(128 dimensions\)/,
      ],
    ];
    const before = provider.requests;
    for (const [index, overrides, reason] of cases) {
      const request = { query: 'grinder', limit: 5, embeddings: settings, planAllowsVectors: true, ...overrides };
      const refused = await searchNode(index, { ...request, mode: 'vector' });
      expect('refused' in refused && refused.refused).toMatch(reason);
      expect('refused' in refused && refused.refused).toMatch(/Leave mode out, or pass "keyword" or "hybrid"\.$/);
      expect(await searchNode(index, { ...request, mode: 'hybrid' })).toMatchObject({ mode: 'keyword' });
      const fallback = await searchNode(index, request);
      expect(fallback).toMatchObject({ mode: 'keyword' });
      expect(ids(fallback)).toEqual(['chunk_0000000b']);
    }
    // None of them asked the provider: a query vector of another model would compare with nothing.
    expect(provider.requests).toBe(before);
  });

  it('falls back to keyword hits when the provider fails and no mode was asked for; a named mode is refused', async () => {
    provider.mode = 'error';
    try {
      const failures: Error[] = [];
      const base = { limit: 5, embeddings: settings, planAllowsVectors: true };
      const fallback = await searchNode(withVectors, {
        ...base,
        query: 'grinder burrs',
        onProviderFailure: (error) => failures.push(error),
      });
      expect(fallback).toMatchObject({ mode: 'keyword' });
      expect(ids(fallback)).toEqual(['chunk_0000000b']);
      expect(failures).toHaveLength(1);
      expect(failures[0]!.message).toMatch(/answered 500/);
      for (const mode of ['hybrid', 'vector'] as const) {
        const refused = await searchNode(withVectors, { ...base, query: `grinder ${mode}`, mode });
        expect(refused).toEqual({
          refused: expect.stringMatching(
            /^The embeddings provider could not embed the query \(.*answered 500.*\); retry, or pass mode "keyword"\.$/,
          ),
        });
      }
    } finally {
      provider.mode = 'up';
    }
  });
});
