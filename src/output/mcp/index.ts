/** The public face of src/output/mcp: what the rest of src/ may import from it. */
export { mcpRoutes } from './routes.js';
export type { KnowledgeMcpOptions, NodeFileReader } from './server.js';

/**
 * The MCP server factory (createKnowledgeMcpServer), loaded on demand: it imports the MCP SDK,
 * about a second of module loading that the daemon's start and other commands should not pay.
 */
export const loadMcpServer = () => import('./server.js');
