/** The public face of src/output/mcp: what the rest of src/ may import from it. */
export { createKnowledgeMcpServer, nodeFileUri, type KnowledgeMcpOptions, type NodeFileReader } from './server.js';
export { mcpRoutes } from './routes.js';
