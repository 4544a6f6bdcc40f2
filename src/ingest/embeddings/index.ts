/** The public face of src/ingest/embeddings: chunk vectors from an OpenAI-compatible provider. */
export { computeEmbeddings, embeddingsComputeJob, enqueueEmbeddings, EMBEDDINGS_MAX_ATTEMPTS } from './compute-job.js';
export { embeddingsWebsite } from './eligibility.js';
export { loadVectorExtension, vectorExtensionFailure } from './extension.js';
export { embedTexts, EmbeddingProviderError, vectorBytes } from './provider.js';
export { embeddingsSettingsOf, modelKeyOf, nodeVectorsOf, type EmbeddingsSettings } from './settings.js';
export { dropOrphanVectors, textHashOf, vectorCoverage, writeVectors } from './store.js';
