import { createReadStream } from 'node:fs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { classifyAgent } from '../../control/analytics/agents.js';
import { createReadCounter } from '../../control/analytics/read-counter.js';
import type { RoutePlugin } from '../../platform/app/route-plugin.js';
import { nodeBaseUrl } from '../../platform/config/config.js';
import { AppError } from '../../platform/errors/app-error.js';
import { createFsTarget } from '../publish/targets/fs.js';
import { createNodeReader, type NodeFileLookup } from '../publish/read-node.js';

const DOMAIN = /^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$/;
const FILE = /^[a-z][a-z0-9-]*(\.[A-Za-z0-9-]+)*\.(json|jsonl|txt|jsonld|xml)$/;

/** The path the daemon serves node files under: node_base_url's path, or /nodes when that is / or the API's. */
export function nodeFilesPath(settings: Parameters<typeof nodeBaseUrl>[0]): string {
  const path = new URL(nodeBaseUrl(settings, 0)).pathname.replace(/\/+$/, '');
  return path === '' || path === '/v1' || path.startsWith('/v1/') ? '/nodes' : path;
}

/**
 * Public node files from the local store (the embedded default): `{node_base_url}/{domain}/{file}`
 * for the live version and `.../{domain}/versions/{ulid}/{file}` for a pinned one. Raw bodies
 * with the file's Content-Type, Cache-Control and a strong ETag (the sha256); If-None-Match
 * answers 304. Errors stay in the envelope: 404 node.not_found, 410 node.gone after a takedown.
 * Every 200 and 304 counts as a node read (analytics node.reads by User-Agent and file,
 * src/control/analytics; metric nodectl_node_reads_total).
 */
export const nodeFileRoutes: RoutePlugin = async (app, { services }) => {
  const reader = createNodeReader(createFsTarget({ root: services.layout.nodesDir }));
  const counter = createReadCounter(services.controlDb, {
    now: services.now,
    onError: (error) => services.logger.warn({ err: error }, 'node read counts dropped: the write failed'),
  });
  app.addHook('onClose', async () => counter.close());
  const base = nodeFilesPath(services.config.settings);

  const serve = (request: FastifyRequest, reply: FastifyReply, lookup: NodeFileLookup) => {
    // Browsers must not guess another type than the declared one (a .txt node file sniffed as HTML).
    reply.header('X-Content-Type-Options', 'nosniff');
    if (lookup.kind !== 'file') {
      services.metrics.nodeReads.inc({ status: lookup.kind === 'gone' ? '410' : '404' });
      if (lookup.kind === 'gone')
        throw new AppError(
          'node.gone',
          lookup.purged
            ? 'This file of the version was deleted by an erasure request; the live version does not hold the erased content.'
            : 'This node was taken down by its owner.',
        );
      throw new AppError('node.not_found', `No node file ${request.url.split('?')[0]}.`);
    }
    counter.count(
      lookup.websiteId,
      classifyAgent(request.headers['user-agent']),
      (request.params as { file: string }).file,
    );
    reply
      .header('ETag', lookup.etag)
      .header('Cache-Control', lookup.cacheControl)
      .header('Content-Type', lookup.contentType);
    const match = request.headers['if-none-match'];
    if (
      typeof match === 'string' &&
      (match.trim() === '*' || match.split(',').some((t) => t.trim().replace(/^W\//, '') === lookup.etag))
    ) {
      services.metrics.nodeReads.inc({ status: '304' });
      return reply.code(304).send();
    }
    services.metrics.nodeReads.inc({ status: '200' });
    reply.header('Content-Length', String(lookup.bytes));
    return reply.code(200).send(createReadStream(lookup.localPath));
  };
  const check = (domain: string, ...files: string[]) => DOMAIN.test(domain) && files.every((f) => FILE.test(f));

  app.get<{ Params: { domain: string; file: string } }>(`${base}/:domain/:file`, async (request, reply) => {
    const domain = request.params.domain.toLowerCase();
    if (!check(domain, request.params.file)) return serve(request, reply, { kind: 'not_found', websiteId: undefined });
    return serve(request, reply, reader.resolveLatest(domain, request.params.file));
  });
  app.get<{ Params: { domain: string; ulid: string; file: string } }>(
    `${base}/:domain/versions/:ulid/:file`,
    async (request, reply) => {
      const domain = request.params.domain.toLowerCase();
      if (!check(domain, request.params.file))
        return serve(request, reply, { kind: 'not_found', websiteId: undefined });
      return serve(request, reply, reader.resolvePinned(domain, request.params.ulid, request.params.file));
    },
  );
};
