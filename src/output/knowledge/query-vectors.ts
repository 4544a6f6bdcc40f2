import { embedTexts, modelKeyOf, type EmbeddingsSettings } from '../../ingest/embeddings/index.js';

/** Query vectors kept, by model and text: paging through a search embeds its query once. */
const KEPT = 256;
const kept = new Map<string, Float32Array>();

/** The query's vector from the provider (throws EmbeddingProviderError), the most recent KEPT reused. */
export async function queryVector(settings: EmbeddingsSettings, query: string): Promise<Float32Array> {
  const key = `${modelKeyOf(settings)}\u0000${query}`;
  const hit = kept.get(key);
  if (hit) {
    kept.delete(key);
    kept.set(key, hit);
    return hit;
  }
  const vector = (await embedTexts(settings, [query])).vectors[0]!;
  kept.set(key, vector);
  if (kept.size > KEPT) kept.delete(kept.keys().next().value!);
  return vector;
}
