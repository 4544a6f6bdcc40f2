import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { type LiveNode, KnowledgeIndex } from '../knowledge/index.js';
import { NODECTL_VERSION } from '../../platform/config/index.js';

const DEFAULT_LIMIT = 10;

const answer = (data: unknown): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(data, null, 2) }],
});
const refuse = (message: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text: message }] });

/**
 * The read-only MCP server of one website (docs/contract.md#mcp): the three tools mcp.json
 * advertises, over the live node's records. Every tool takes an optional websiteId that defaults to
 * the one the server was started for and refuses any other (an MCP InvalidParams error), so an agent
 * configured for several sites cannot cross them by mistake.
 */
export function createKnowledgeMcpServer(websiteId: string, node: LiveNode): McpServer {
  const index = new KnowledgeIndex(node);
  const server = new McpServer({ name: `nodectl-${node.manifest.domain}`, version: NODECTL_VERSION });
  const scope = {
    websiteId: z
      .string()
      .optional()
      .describe(`the website this server is scoped to; optional, defaults to ${websiteId}, any other is refused`),
  };
  // Thrown, not returned: the SDK answers it as a tool error naming the JSON-RPC code (-32602), as it
  // does for arguments that fail the input schema.
  const checkSite = (asked: string | undefined): void => {
    if (asked !== undefined && asked !== websiteId)
      throw new McpError(
        ErrorCode.InvalidParams,
        `This server serves website ${websiteId} only (nodectl mcp --website ${websiteId}); got websiteId ${JSON.stringify(asked)}. Leave websiteId out to use ${websiteId}.`,
      );
  };

  server.registerTool(
    'search_website_knowledge',
    {
      description: 'Ranked entity, fact and chunk hits for a text query.',
      inputSchema: { ...scope, query: z.string().min(1), limit: z.number().int().min(1).max(50).optional() },
      annotations: { readOnlyHint: true },
    },
    async ({ websiteId: asked, query, limit }) => {
      checkSite(asked);
      return answer({
        node_version: node.manifest.node_version,
        query,
        hits: index.search(query, limit ?? DEFAULT_LIMIT),
      });
    },
  );

  server.registerTool(
    'get_entity_facts',
    {
      description: 'The exported facts of one entity, by its entity_* id.',
      inputSchema: { ...scope, entityId: z.string().regex(/^entity_[0-9a-f]+$/) },
      annotations: { readOnlyHint: true },
    },
    async ({ websiteId: asked, entityId }) => {
      checkSite(asked);
      const entity = index.entity(entityId);
      if (!entity)
        return refuse(
          `No entity ${entityId} in node ${node.manifest.node_version}; find ids with search_website_knowledge.`,
        );
      return answer({ node_version: node.manifest.node_version, entity, facts: index.factsOf(entityId) });
    },
  );

  server.registerTool(
    'list_node_files',
    {
      description: 'The files of the live node with checksum and size.',
      inputSchema: scope,
      annotations: { readOnlyHint: true },
    },
    async ({ websiteId: asked }) => {
      checkSite(asked);
      const { manifest } = node;
      return answer({
        node_version: manifest.node_version,
        node_version_label: manifest.node_version_label ?? null,
        domain: manifest.domain,
        files: manifest.files.map(({ path, content_type, checksum, bytes, records, language }) => ({
          path,
          content_type,
          checksum,
          bytes,
          ...(records !== undefined ? { records } : {}),
          ...(language !== undefined ? { language } : {}),
        })),
      });
    },
  );
  return server;
}
