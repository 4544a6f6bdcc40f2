/** The public face of src/output/mcp: what the rest of src/ may import from it. */
export { createKnowledgeMcpServer } from './server.js';
