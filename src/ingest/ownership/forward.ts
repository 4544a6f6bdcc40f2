import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Dispatcher } from 'undici';
import { AppError } from '../../platform/errors/index.js';
import type { Db } from '../../platform/storage/index.js';
import { claimedConnectorId } from '../endpoints/index.js';
import type { GraphOwnership } from './ownership.js';

/** Marks a request one daemon forwarded to another: it is never forwarded again (no loops). */
export const FORWARDED_BY_HEADER = 'x-nodectl-forwarded-by';

/** Hop-by-hop headers (RFC 9110 7.6.1) and the ones the next hop sets itself. */
const NOT_FORWARDED = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
]);

/**
 * Before any route that reads or writes one website's graph (config.graphOf) runs, finds which
 * daemon writes that graph (taking the website when nobody does) and, when it is another,
 * forwards the request to it unread (the body streamed as it arrives) and streams its answer
 * back. The owner authenticates, verifies and rate-limits it as if the client had sent it there:
 * every daemon shares the control store, so nothing here needs to trust the request. The
 * client's address travels in X-Forwarded-For (set NODECTL_TRUST_PROXY to the daemons' addresses).
 */
export function forwardGraphRequests(app: FastifyInstance, ownership: GraphOwnership, controlDb: Db): void {
  const connectorWebsite = controlDb.prepare('SELECT website_id AS "websiteId" FROM connectors WHERE id = ?');
  const websiteExists = controlDb.prepare('SELECT 1 FROM websites WHERE id = ?');
  const websiteOf = (request: FastifyRequest): string | undefined => {
    const of = request.routeOptions.config.graphOf;
    if (of === 'website') {
      const id = (request.params as { id?: unknown }).id;
      return typeof id === 'string' && websiteExists.get(id) ? id : undefined;
    }
    if (of === 'connector') {
      const connectorId = claimedConnectorId(request.headers);
      const row = connectorId ? (connectorWebsite.get(connectorId) as { websiteId: string } | undefined) : undefined;
      return row?.websiteId;
    }
    return undefined;
  };
  app.addHook('onRequest', async (request, reply) => {
    // An unknown website or connector goes on to the route, which answers it as it always does.
    const websiteId = websiteOf(request);
    if (websiteId === undefined) return;
    const location = await ownership.locate(websiteId);
    if (location.here) return;
    if (request.headers[FORWARDED_BY_HEADER] !== undefined || location.address === null)
      throw new AppError('service.unavailable', 'The daemon that writes this website is changing; retry shortly.', {
        retryAfterSeconds: 1,
      });
    return forward(request, reply, location.address, ownership.daemonId);
  });
}

async function forward(request: FastifyRequest, reply: FastifyReply, address: string, daemonId: string) {
  // Loaded at the first forward: a daemon alone never needs it. undici is CommonJS: its exports are `default`.
  const { request: send } = (await import('undici')).default;
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(request.headers))
    if (value !== undefined && !NOT_FORWARDED.has(name)) headers[name] = value;
  const forwardedFor = request.headers['x-forwarded-for'];
  headers['x-forwarded-for'] = [forwardedFor, request.socket.remoteAddress].filter(Boolean).join(', ');
  headers[FORWARDED_BY_HEADER] = daemonId;
  const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
  let answer: Dispatcher.ResponseData;
  try {
    answer = await send(new URL(request.url, address), {
      method: request.method as 'POST',
      headers,
      body: hasBody ? request.raw : null,
      // A publish streams its progress for as long as it runs: no timeout between its events.
      bodyTimeout: 0,
    });
  } catch (error) {
    throw new AppError(
      'service.unavailable',
      `The daemon that writes this website (${address}) did not answer (${(error as Error).message}); retry shortly.`,
      { retryAfterSeconds: 1, cause: error },
    );
  }
  reply.code(answer.statusCode);
  for (const [name, value] of Object.entries(answer.headers))
    if (value !== undefined && !NOT_FORWARDED.has(name)) reply.header(name, value);
  return reply.send(answer.body);
}
