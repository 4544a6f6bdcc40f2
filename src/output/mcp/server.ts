import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { type LiveNode, type NodeSearchRequest, KnowledgeIndex, SEARCH_MODES, searchNode } from '../knowledge/index.js';
import { NODECTL_VERSION } from '../../platform/config/index.js';
import { EntityFactsOutputSchema, NodeFilesOutputSchema, SearchOutputSchema } from './schemas.js';

const DEFAULT_LIMIT = 10;

/** Text for clients that read only `content`, the same object as `structuredContent` for those that read both. */
const answer = (data: Record<string, unknown>): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(data, null, 2) }],
  structuredContent: data,
});
const refuse = (message: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text: message }] });

/** Reads one file of the live version the server answers from; undefined when the store lacks it. */
export type NodeFileReader = (path: string) => Promise<Buffer | undefined>;

export interface KnowledgeMcpOptions {
  /** Serves the node's files as MCP resources, read through it; without it the server has no resources. */
  readFile?: NodeFileReader;
  /** The index over `node`, when the caller keeps one (the HTTP endpoint shares one per live version). */
  index?: KnowledgeIndex;
  /** How a refusal of another websiteId names this server; default the stdio command line. */
  servedAs?: string;
  /** The operator's embeddings provider, which embeds queries; without it search is by keyword. */
  embeddings?: NodeSearchRequest['embeddings'];
  /** Whether the website's plan allows vectors (cap.advanced and cap.embeddings); default false. */
  planAllowsVectors?: boolean;
  /** Told when a search without a mode answers keyword hits because the provider failed. */
  onProviderFailure?: NodeSearchRequest['onProviderFailure'];
}

/** The URI of a node file as an MCP resource. */
export function nodeFileUri(websiteId: string, path: string): string {
  return `nodectl://websites/${websiteId}/node/${path}`;
}

/**
 * The read-only MCP server of one website (docs/mcp.md): the three tools mcp.json advertises,
 * over the live node's records, each with an output schema and structured content; and the
 * node's files (manifest.json first) as resources. Every tool takes an optional websiteId that
 * defaults to the one the server was started for and refuses any other (an MCP InvalidParams
 * error), so an agent configured for several sites cannot cross them by mistake. Stdio
 * (`nodectl mcp`) and HTTP (POST /v1/websites/:id/mcp) build the same server.
 */
export function createKnowledgeMcpServer(
  websiteId: string,
  node: LiveNode,
  options: KnowledgeMcpOptions = {},
): McpServer {
  const index = options.index ?? new KnowledgeIndex(node);
  const servedAs = options.servedAs ?? `nodectl mcp --website ${websiteId}`;
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
        `This server serves website ${websiteId} only (${servedAs}); got websiteId ${JSON.stringify(asked)}. Leave websiteId out to use ${websiteId}.`,
      );
  };

  server.registerTool(
    'search_website_knowledge',
    {
      description: 'Ranked entity, fact and chunk hits for a text query.',
      inputSchema: {
        ...scope,
        query: z.string().min(1),
        limit: z.number().int().min(1).max(50).optional(),
        mode: z
          .enum(SEARCH_MODES)
          .optional()
          .describe(
            'keyword (words), vector (meaning, chunks only) or hybrid (both, fused); default hybrid where the node carries vectors the server can search, else keyword',
          ),
      },
      outputSchema: SearchOutputSchema.shape,
      annotations: { readOnlyHint: true },
    },
    async ({ websiteId: asked, query, limit, mode }) => {
      checkSite(asked);
      const found = await searchNode(index, {
        query,
        limit: limit ?? DEFAULT_LIMIT,
        mode,
        embeddings: options.embeddings,
        planAllowsVectors: options.planAllowsVectors ?? false,
        ...(options.onProviderFailure ? { onProviderFailure: options.onProviderFailure } : {}),
      });
      if ('refused' in found) return refuse(found.refused);
      return answer({ node_version: node.manifest.node_version, query, mode: found.mode, hits: found.hits });
    },
  );

  server.registerTool(
    'get_entity_facts',
    {
      description: 'The exported facts of one entity, by its entity_* id.',
      inputSchema: { ...scope, entityId: z.string().regex(/^entity_[0-9a-f]+$/) },
      outputSchema: EntityFactsOutputSchema.shape,
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
      outputSchema: NodeFilesOutputSchema.shape,
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

  if (options.readFile) registerNodeFiles(server, websiteId, node, options.readFile);
  return server;
}

/**
 * One resource per file of the live version, manifest.json first, read from that version only
 * (never latest/, which a publish may flip meanwhile). Node files are UTF-8 text (JSON, JSON
 * Lines, text, XML), answered as `text`, but for the vectors (embeddings.f32), bytes answered as `blob`.
 */
function registerNodeFiles(server: McpServer, websiteId: string, node: LiveNode, readFile: NodeFileReader): void {
  const { manifest } = node;
  const files = [
    { path: 'manifest.json', content_type: 'application/json', bytes: undefined as number | undefined },
    ...manifest.files.map((f) => ({
      path: f.path,
      content_type: f.content_type,
      bytes: f.bytes as number | undefined,
    })),
  ];
  for (const file of files) {
    const uri = nodeFileUri(websiteId, file.path);
    server.registerResource(
      file.path,
      uri,
      {
        title: `${manifest.domain}/${file.path}`,
        description: `${file.path} of node ${manifest.node_version} of ${manifest.domain}`,
        mimeType: file.content_type,
        ...(file.bytes !== undefined ? { size: file.bytes } : {}),
      },
      async () => {
        const body = await readFile(file.path);
        if (body === undefined)
          throw new McpError(
            ErrorCode.InvalidParams,
            `${file.path} of node ${manifest.node_version} is no longer in the store (a newer version or an erasure replaced it); list the resources again.`,
          );
        if (file.content_type === 'application/octet-stream')
          return { contents: [{ uri, mimeType: file.content_type, blob: body.toString('base64') }] };
        return { contents: [{ uri, mimeType: file.content_type, text: body.toString('utf8') }] };
      },
    );
  }
}
