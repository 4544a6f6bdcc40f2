/** The public face of src/output/knowledge: what the rest of src/ may import from it. */
export { SearchHitSchema } from './api-schemas.js';
export type { SearchQuerySchema } from './api-schemas.js';
export { readLiveNode } from './live-node.js';
export type { LiveNode } from './live-node.js';
export { previewRoutes } from './preview-routes.js';
export { knowledgeRoutes } from './routes.js';
export { KnowledgeIndex } from './search-index.js';
