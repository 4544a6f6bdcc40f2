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
