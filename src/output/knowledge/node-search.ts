import {
  EmbeddingProviderError,
  vectorExtensionFailure,
  type EmbeddingsSettings,
} from '../../ingest/embeddings/index.js';
import type { SearchMode } from './hybrid-search.js';
import { queryVector } from './query-vectors.js';
import type { SearchHit } from './search.js';
import type { KnowledgeIndex } from './search-index.js';

export interface NodeSearchRequest {
  query: string;
  limit: number;
  /** The mode asked for; without one, hybrid where vectors can be searched, else keyword. */
  mode?: SearchMode | undefined;
  /** The operator's embeddings provider (embeddingsSettingsOf); undefined when embeddings are off. */
  embeddings?: EmbeddingsSettings | undefined;
  /** Whether the website's plan carries what vectors need (cap.advanced and cap.embeddings). */
  planAllowsVectors: boolean;
  /** Told when a search without a mode answers keyword hits because the query could not be embedded. */
  onProviderFailure?: (error: EmbeddingProviderError) => void;
}

/** The hits and the mode that ranked them, or why the mode asked for cannot run (what to fix). */
export type NodeSearchAnswer = { mode: SearchMode; hits: SearchHit[] } | { refused: string };

/**
 * A search of a published node in the modes of GET /v1/websites/:id/knowledge/search
 * (docs/knowledge.md "Modes"): hybrid by default where vectors can be searched; `vector` where
 * they cannot is refused, `hybrid` answers the keyword hits (a fusion of one list). The query is
 * embedded by the operator's provider, so only a node whose vectors are of the configured model
 * and dimensions is searched by meaning. A provider failure refuses a named mode; the default
 * falls back to keyword hits.
 */
export async function searchNode(index: KnowledgeIndex, request: NodeSearchRequest): Promise<NodeSearchAnswer> {
  const { query, limit, mode: asked, embeddings } = request;
  const blocked = asked === 'keyword' ? undefined : whyNoVectors(index, request);
  if (asked === 'vector' && blocked !== undefined)
    return { refused: `mode "vector" cannot run: ${blocked}. Leave mode out, or pass "keyword" or "hybrid".` };
  const mode: SearchMode = blocked === undefined ? (asked ?? 'hybrid') : 'keyword';
  if (mode === 'keyword') return { mode, hits: index.search(query, limit) };
  let vector: Float32Array;
  try {
    vector = await queryVector(embeddings!, query);
  } catch (error) {
    if (!(error instanceof EmbeddingProviderError)) throw error;
    if (asked !== undefined)
      return {
        refused: `The embeddings provider could not embed the query (${error.message}); retry, or pass mode "keyword".`,
      };
    request.onProviderFailure?.(error);
    return { mode: 'keyword', hits: index.search(query, limit) };
  }
  return { mode, hits: index.search(query, limit, { mode, vector }) };
}

/** Why the node cannot be searched by meaning here, as what to fix; undefined when it can. */
function whyNoVectors(index: KnowledgeIndex, request: NodeSearchRequest): string | undefined {
  const { embeddings } = request;
  const carried = index.vectorModel;
  const nodeModel = carried && `${carried.model} (${carried.dimensions} dimensions)`;
  if (!request.planAllowsVectors)
    return "the website's plan lacks cap.advanced or cap.embeddings (vectors need the business plan)";
  // Checked before the node's vectors: a server with embeddings off does not read them.
  if (embeddings === undefined)
    return `embeddings are off on this server, so the query cannot be embedded: set embeddingsUrl, embeddingsModel and embeddingsDimensions${nodeModel ? ` to the model of the node's vectors, ${nodeModel}` : ''} (docs/knowledge.md "Settings")`;
  if (carried === undefined)
    return 'the live node carries no vectors (its embeddings-manifest.json is not_computed): publish again once the embedding job has stored vectors';
  if (embeddings.model !== carried.model || embeddings.dimensions !== carried.dimensions)
    return `the node's vectors are of ${nodeModel} but the configured provider embeds with ${embeddings.model} (${embeddings.dimensions} dimensions): configure embeddingsModel and embeddingsDimensions to match, or publish again once the embedding job has stored vectors of the new model`;
  if (!index.hasVectors()) {
    const failure = vectorExtensionFailure();
    return failure !== undefined
      ? `the sqlite-vec extension does not load on this machine (${failure})`
      : "none of the node's vectors belongs to one of its chunks";
  }
  return undefined;
}
