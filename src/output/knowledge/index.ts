/** The public face of src/output/knowledge: what the rest of src/ may import from it. */
export { SearchHitSchema } from './api-schemas.js';
export type { SearchQuerySchema } from './api-schemas.js';
export { SEARCH_MODES, type SearchMode } from './hybrid-search.js';
export { readLiveNode } from './live-node.js';
export type { LiveNode, NodeVectors } from './live-node.js';
export { searchNode, type NodeSearchAnswer, type NodeSearchRequest } from './node-search.js';
export { previewRoutes } from './preview-routes.js';
export { knowledgeRoutes } from './routes.js';
export { KnowledgeIndex } from './search-index.js';
