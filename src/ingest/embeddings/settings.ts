import type { Settings } from '../../platform/config/index.js';

/** The embeddings settings when embeddings are on (embeddingsUrl set), else undefined. */
export interface EmbeddingsSettings {
  url: string;
  model: string;
  dimensions: number;
  batchSize: number;
  timeoutMs: number;
  apiKey?: string;
}

export function embeddingsSettingsOf(settings: Settings): EmbeddingsSettings | undefined {
  if (settings.embeddingsUrl === undefined) return undefined;
  return {
    url: settings.embeddingsUrl,
    model: settings.embeddingsModel,
    dimensions: settings.embeddingsDimensions,
    batchSize: settings.embeddingsBatchSize,
    timeoutMs: settings.embeddingsTimeoutMs,
    ...(settings.embeddingsApiKey === undefined ? {} : { apiKey: settings.embeddingsApiKey }),
  };
}

/** What a stored vector was made by: a vector of another model or length is stale. */
export function modelKeyOf(settings: Pick<EmbeddingsSettings, 'model' | 'dimensions'>): string {
  return `${settings.model}@${settings.dimensions}`;
}

/**
 * What a compile needs to carry the vectors in the node (CompileOptions.embeddings): the model,
 * its dimensions and the key its vectors are stored under; undefined when embeddings are off.
 */
export function nodeVectorsOf(settings: Settings): { model: string; dimensions: number; key: string } | undefined {
  const embeddings = embeddingsSettingsOf(settings);
  return embeddings === undefined
    ? undefined
    : { model: embeddings.model, dimensions: embeddings.dimensions, key: modelKeyOf(embeddings) };
}
