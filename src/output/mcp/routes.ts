import type { FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { authorizedWebsite, type RouteAccess } from '../../control/access/index.js';
import { assertCapability } from '../../control/plans/index.js';
import { countsAsVerified, loadWebsiteInfo } from '../../control/records/index.js';
import { embeddingsSettingsOf, embeddingsWebsite } from '../../ingest/embeddings/index.js';
import type { RoutePlugin } from '../../platform/app/index.js';
import { AppError } from '../../platform/errors/index.js';
import { nodeStoreReader, type NodeStoreReader, type PublishTarget } from '../publish/index.js';
import { createLiveIndexes } from './live-indexes.js';

/**
 * The SDK and the server factory, loaded at the first MCP request: importing the SDK takes about a
 * second, which the daemon's start should not pay for an endpoint many daemons never serve.
 */
let loaded:
  | Promise<{
      transport: typeof import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js');
      types: typeof import('@modelcontextprotocol/sdk/types.js');
      server: typeof import('./server.js');
    }>
  | undefined;
const loadMcp = () =>
  (loaded ??= Promise.all([
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    import('./server.js'),
  ]).then(([transport, types, server]) => ({ transport, types, server })));

const VIEWER_READ: RouteAccess = { minRole: 'viewer', access: 'read', resource: { kind: 'website', param: 'id' } };
const MCP_PATH = '/v1/websites/:id/mcp';
const TAGS = ['mcp'];

const PathSchema = z.object({ id: z.string().describe('The website id (web_...)') });

const JsonRpcId = z.union([z.string(), z.number().int()]);

/** One JSON-RPC 2.0 message a client sends: a request (id and method), a notification (method) or a response. */
const JsonRpcMessageSchema = z
  .looseObject({
    jsonrpc: z.literal('2.0'),
    id: JsonRpcId.optional(),
    method: z.string().min(1).optional().describe('initialize, tools/list, tools/call, resources/list, ...'),
    params: z.record(z.string(), z.unknown()).optional(),
    result: z.record(z.string(), z.unknown()).optional(),
    error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }).optional(),
  })
  .refine((m) => m.method !== undefined || (m.id !== undefined && (m.result !== undefined || m.error !== undefined)), {
    message: 'a request or notification needs method; a response needs id and result or error',
  })
  .meta({ title: 'JSON-RPC message' });

// The SDK's own cap on a batch (MAX_BATCH_SIZE).
const McpRequestSchema = z
  .union([JsonRpcMessageSchema, z.array(JsonRpcMessageSchema).min(1).max(100)])
  .describe('One JSON-RPC message of MCP, or a batch of them');

const JsonRpcResponseSchema = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: JsonRpcId.nullable(),
    result: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('The method result: InitializeResult, ListToolsResult, CallToolResult, ...'),
    error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }).optional(),
  })
  .meta({ title: 'JSON-RPC response' });

const McpResponseSchema = z
  .union([JsonRpcResponseSchema, z.array(JsonRpcResponseSchema)])
  .describe('The JSON-RPC response (or one per request of a batch); MCP errors are JSON-RPC errors here, with 200');

const HeadersSchema = z.looseObject({
  'mcp-protocol-version': z
    .string()
    .optional()
    .describe(
      'The protocol version initialize agreed on (2025-11-25, 2025-06-18, 2025-03-26, ...: those the SDK supports); clients send it on every later request',
    ),
});

/**
 * The request the SDK transport reads: method, the headers it checks, no body (it takes the
 * body Fastify parsed). Accept always names both types: answers are JSON whatever the client
 * accepts, since this endpoint never streams.
 */
function transportRequest(request: FastifyRequest): Request {
  const headers = new Headers({ accept: 'application/json, text/event-stream', 'content-type': 'application/json' });
  const version = request.headers['mcp-protocol-version'];
  if (typeof version === 'string') headers.set('mcp-protocol-version', version);
  return new Request(`http://localhost${request.url}`, { method: 'POST', headers });
}

/**
 * MCP over Streamable HTTP for one website (docs/mcp.md): POST /v1/websites/:id/mcp takes one
 * JSON-RPC message (or a batch) and answers JSON, with the tools and resources of `nodectl mcp`.
 * Stateless: every request gets a new server and transport (no Mcp-Session-Id), so any daemon
 * behind a balancer answers any request; GET (an event stream) and DELETE (ending a session)
 * answer 405. Before MCP sees the request, the API's rules apply in its envelope: the caller
 * (API key or user token) needs the viewer role on the website, the rate limit, the plan's
 * cap.mcp, a verified website and a live node.
 */
export const mcpRoutes: RoutePlugin = async (plainApp, { services }) => {
  const app = plainApp.withTypeProvider<ZodTypeProvider>();
  let target: Promise<PublishTarget> | undefined;
  const getTarget = () =>
    (target ??= import('../publish/index.js').then((m) => m.createTargetFromSettings(services.config.settings)));
  let reader: Promise<NodeStoreReader> | undefined;
  const getReader = () => (reader ??= getTarget().then(nodeStoreReader));
  const embeddings = embeddingsSettingsOf(services.config.settings);
  const indexes = createLiveIndexes(getReader, { vectors: embeddings !== undefined });
  app.addHook('onClose', async () => {
    indexes.close();
    if (target) await (await target).close();
  });

  app.post(
    MCP_PATH,
    {
      config: {
        access: VIEWER_READ,
        errors: ['entitlement.capability_missing', 'website.not_verified', 'node.not_found'],
      },
      schema: {
        summary: "MCP (Streamable HTTP, stateless) over the website's live node: search, entity facts, node files",
        description:
          'One JSON-RPC 2.0 message of the Model Context Protocol, or a batch: initialize, tools/list, tools/call (search_website_knowledge, get_entity_facts, list_node_files), resources/list, resources/read. Answers are JSON (never an event stream); no Mcp-Session-Id is issued. The plan must carry cap.mcp and the website must be verified. See docs/mcp.md.',
        tags: TAGS,
        params: PathSchema,
        headers: HeadersSchema,
        body: McpRequestSchema,
        response: {
          200: McpResponseSchema,
          202: z.undefined().describe('Accepted: the body held only notifications or responses'),
        },
      },
    },
    async (request, reply) => {
      const website = authorizedWebsite(request);
      assertCapability(services.controlDb, website.organizationId, 'cap.mcp');
      const info = loadWebsiteInfo(services.controlDb, website.id);
      if (!info || !countsAsVerified(info.verification.state))
        throw new AppError(
          'website.not_verified',
          `Website ${website.id} is not verified (verification ${info?.verification.state ?? 'missing'}), so MCP does not serve it: verify ownership of ${website.domain} first.`,
        );
      const { transport: sdk, types, server: factory } = await loadMcp();
      const asked = request.headers['mcp-protocol-version'];
      if (typeof asked === 'string' && !types.SUPPORTED_PROTOCOL_VERSIONS.includes(asked))
        throw new AppError(
          'validation.failed',
          `MCP-Protocol-Version ${asked} is not supported: send one of ${types.SUPPORTED_PROTOCOL_VERSIONS.join(', ')} (what initialize answered).`,
          { details: { fields: [{ path: 'headers.mcp-protocol-version', message: 'unsupported protocol version' }] } },
        );
      const store = await getReader();
      const live = await indexes.acquire(website.id);
      if (!live)
        throw new AppError(
          'node.not_found',
          `Website ${website.id} has no live node (nothing published yet, or it was taken down): publish it first (POST /v1/websites/${website.id}/publish).`,
        );
      const version = live.node.manifest.node_version;
      const server = factory.createKnowledgeMcpServer(website.id, live.node, {
        index: live.index,
        readFile: async (path) => {
          try {
            return await store.versionFile(website.id, version, path);
          } catch (error) {
            // The store's own error names paths and hosts: logged, not answered.
            request.log.error({ err: error, path }, 'an MCP resource could not be read from the publish store');
            throw new types.McpError(
              types.ErrorCode.InternalError,
              `${path} could not be read from the publish store; retry later (request ${request.id} in the daemon's log).`,
            );
          }
        },
        servedAs: `POST /v1/websites/${website.id}/mcp`,
        // Searched by meaning as the knowledge search API is: the same settings and plan gate.
        embeddings,
        planAllowsVectors: embeddingsWebsite(services.controlDb, website.id) !== undefined,
        onProviderFailure: (error) =>
          request.log.warn({ err: error }, 'query not embedded: search_website_knowledge answers keyword hits'),
      });
      const transport = new sdk.WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      let answer: Response;
      try {
        await server.connect(transport);
        // JSON mode: the promise settles once every request of the body has its response.
        answer = await transport.handleRequest(transportRequest(request), { parsedBody: request.body });
      } finally {
        await server.close();
        live.release();
      }
      const text = await answer.text();
      if (answer.status === 202) return reply.code(202).send();
      if (answer.status >= 500) throw new Error(`the MCP transport answered ${answer.status}: ${text}`);
      if (answer.status !== 200) {
        // The route's schemas let through what the transport still refuses (a message the SDK's schema rejects).
        let message = text;
        try {
          message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? text;
        } catch {
          // not JSON: the text itself
        }
        throw new AppError('validation.failed', `The MCP message was refused: ${message}`, {
          details: { fields: [{ path: 'body', message }] },
        });
      }
      return reply.code(200).send(JSON.parse(text) as z.infer<typeof McpResponseSchema>);
    },
  );

  // Stateless: no server-initiated stream to open (GET) and no session to end (DELETE); MCP
  // clients take 405 as "none offered" (Streamable HTTP, "Listening for Messages from the Server").
  for (const method of ['GET', 'DELETE'] as const)
    app.route({
      method,
      url: MCP_PATH,
      config: { access: VIEWER_READ, errors: ['request.method_not_allowed'] },
      schema: {
        summary:
          method === 'GET'
            ? 'Refused (405): the stateless MCP endpoint opens no event stream; use POST'
            : 'Refused (405): the stateless MCP endpoint keeps no session to end; use POST',
        tags: TAGS,
        params: PathSchema,
        // Only the refusal: the document lists it with its error code (src/daemon/openapi).
        response: { 405: z.object({}).describe('Refused: use POST') },
      },
      handler: async (_request, reply) => {
        reply.header('Allow', 'POST');
        throw new AppError(
          'request.method_not_allowed',
          `${method} is not offered: this MCP endpoint is stateless (no event stream, no session). Send JSON-RPC messages with POST.`,
        );
      },
    });
};
