import { z } from 'zod';
import type { EmbeddingsSettings } from './settings.js';

/** A provider answered with an error, answered nonsense, or did not answer: the batch is retried later. */
export class EmbeddingProviderError extends Error {
  override readonly name = 'EmbeddingProviderError';
}

const AnswerSchema = z.object({
  data: z.array(z.object({ index: z.number().int().min(0), embedding: z.array(z.number()) })),
  usage: z.object({ total_tokens: z.number().int().min(0).optional() }).optional(),
});

export interface EmbeddedBatch {
  /** One vector per input text, in input order. */
  vectors: Float32Array[];
  /** Tokens the provider reports (0 when it reports none). */
  tokens: number;
}

/**
 * Embeds `texts` with an OpenAI-compatible POST /v1/embeddings (OpenAI, Ollama, vLLM, Text
 * Embeddings Inference): {model, input} in, {data: [{index, embedding}]} out. `dimensions` is
 * not sent (servers without Matryoshka models reject it); an answer of another length fails.
 */
export async function embedTexts(
  settings: EmbeddingsSettings,
  texts: readonly string[],
  signal?: AbortSignal,
): Promise<EmbeddedBatch> {
  const timeout = AbortSignal.timeout(settings.timeoutMs);
  let response: Response;
  try {
    response = await fetch(settings.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}),
      },
      body: JSON.stringify({ model: settings.model, input: texts, encoding_format: 'float' }),
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
  } catch (error) {
    throw new EmbeddingProviderError(
      `embeddings provider unreachable at ${settings.url}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  const text = await response.text().catch(() => '');
  if (!response.ok)
    throw new EmbeddingProviderError(
      `embeddings provider answered ${response.status} at ${settings.url}: ${text.slice(0, 300)}`,
    );
  let parsed;
  try {
    parsed = AnswerSchema.safeParse(JSON.parse(text));
  } catch {
    parsed = undefined;
  }
  if (!parsed?.success)
    throw new EmbeddingProviderError(`embeddings provider answered no {data: [{index, embedding}]} at ${settings.url}`);
  const vectors: Array<Float32Array | undefined> = new Array(texts.length);
  for (const item of parsed.data.data) {
    if (item.index >= texts.length) continue;
    if (item.embedding.length !== settings.dimensions)
      throw new EmbeddingProviderError(
        `embeddings provider answered vectors of ${item.embedding.length} dimensions; embeddingsDimensions is ${settings.dimensions}: set it to the model's length`,
      );
    vectors[item.index] = Float32Array.from(item.embedding);
  }
  // A sparse array: some() would skip the holes.
  for (let i = 0; i < texts.length; i++)
    if (vectors[i] === undefined)
      throw new EmbeddingProviderError(
        `embeddings provider answered fewer vectors than the ${texts.length} texts sent`,
      );
  return { vectors: vectors as Float32Array[], tokens: parsed.data.usage?.total_tokens ?? 0 };
}

/** A vector as stored: little-endian float32 bytes (every platform sqlite-vec ships for is little-endian). */
export function vectorBytes(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}
