import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { newUlid } from '../ids/ulid.js';
import { ZodError } from 'zod';
import { AppError, fieldProblemsFromZod, isAppError } from '../errors/app-error.js';
import { errorEnvelope, sendError } from './envelope.js';
import { ROUTE_PLUGINS } from './route-plugins.js';
import type { AppServices } from './services.js';

/** 1 MiB everywhere but /v1/ingest/* (16 MiB, set by the ingest plugin), per DECISIONS.md. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/** Header and body fields that must never reach a log line. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'req.headers["x-signature"]',
  'res.headers["set-cookie"]',
  '*.password',
  '*.token',
  '*.secret',
  '*.refreshToken',
  '*.accessToken',
];

export interface BuildAppOptions {
  /** Fastify logger options; false (the default in tests) logs nothing. */
  logger?: FastifyServerOptions['logger'];
}

/**
 * Builds the daemon's HTTP application without listening, so tests can inject requests and
 * `nodectl serve` can listen. Every response, success or failure, is in the contract envelope
 * (except /metrics) and carries X-Request-Id.
 */
export async function buildApp(services: AppServices, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: DEFAULT_BODY_LIMIT,
    requestIdHeader: false,
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID_PATTERN.test(incoming) ? incoming : newUlid();
    },
    return503OnClosing: true,
    forceCloseConnections: false,
  });

  // JSON only: a text/plain body is 415, not a string handed to a route.
  app.removeContentTypeParser('text/plain');

  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });

  // Callback-style hooks: these run on every request, and skip a promise each.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    done();
  });

  // While shutting down, in-flight responses close their connection so keep-alive clients
  // cannot hold the process open.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('Connection', 'close');
    done(null, payload);
  });

  app.addHook('onResponse', (request, reply, done) => {
    const labels = { method: request.method, route: request.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) };
    services.metrics.httpRequests.inc(labels);
    services.metrics.httpDuration.observe(labels, reply.elapsedTime / 1000);
    done();
  });

  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send(errorEnvelope(request, 'route.not_found', `No route for ${request.method} ${request.url.split('?')[0]}. See the API reference in README.md.`));
  });

  app.setErrorHandler(async (error, request, reply) => {
    const appError = toAppError(error);
    if (appError.code === 'internal.error') request.log.error({ err: error }, 'unexpected error');
    return sendErrorReply(request, reply, appError);
  });

  for (const plugin of ROUTE_PLUGINS) await app.register(plugin, { services });
  return app;
}

/** Past this many bytes an over-limit body is no longer read: the connection is closed instead. */
const MAX_DISCARDED_BODY_BYTES = 64 * 1024 * 1024;

/**
 * Sends an error envelope. A body refused as too large is first read to its end and dropped (up to
 * MAX_DISCARDED_BODY_BYTES): a client still uploading would otherwise meet a closed connection
 * (EPIPE) instead of the contract's 413, and the connection can then stay open.
 */
export async function sendErrorReply(request: FastifyRequest, reply: FastifyReply, appError: AppError): Promise<FastifyReply> {
  if (appError.code === 'request.body_too_large' && (await discardRestOfBody(request.raw, MAX_DISCARDED_BODY_BYTES))) reply.removeHeader('connection');
  return sendError(request, reply, appError);
}

/** Resolves true when the body was read to its end, false when it was cut off past `maxBytes`. */
function discardRestOfBody(raw: IncomingMessage, maxBytes: number): Promise<boolean> {
  if (raw.readableEnded) return Promise.resolve(true);
  if (raw.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    let discarded = 0;
    const finish = (complete: boolean): void => {
      raw.off('data', onData).off('end', onEnd).off('error', onAbort).off('close', onAbort);
      resolve(complete);
    };
    const onEnd = (): void => finish(true);
    const onAbort = (): void => finish(false);
    const onData = (chunk: Buffer): void => {
      discarded += chunk.length;
      if (discarded > maxBytes) finish(false);
    };
    raw.on('data', onData).once('end', onEnd).once('error', onAbort).once('close', onAbort).resume();
  });
}

/** Maps framework, zod and unexpected errors to contract codes; nothing else reaches a client. */
export function toAppError(error: unknown): AppError {
  if (isAppError(error)) return error;
  if (error instanceof ZodError) return new AppError('validation.failed', 'The request does not match the schema; see details.fields.', { details: { fields: fieldProblemsFromZod(error.issues) } });
  const fastifyError = error as { code?: string; statusCode?: number; message?: string; validation?: unknown };
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('request.body_too_large', 'The request body is larger than this route accepts (16 MiB on /v1/ingest/*, 1 MiB elsewhere). Send smaller batches.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('request.unsupported_media_type', 'Send the body as application/json.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('validation.failed', 'The body is empty; send a JSON object.', { details: { fields: [{ path: '(body)', message: 'body is empty' }] } });
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return malformedJson(fastifyError.message);
  }
  if (error instanceof SyntaxError || (fastifyError.statusCode === 400 && /JSON/i.test(fastifyError.message ?? ''))) return malformedJson(fastifyError.message);
  if (fastifyError.validation) return new AppError('validation.failed', fastifyError.message ?? 'invalid request', { details: { fields: [{ path: '(request)', message: fastifyError.message ?? '' }] } });
  return new AppError('internal.error', 'An unexpected error happened. Quote the request id when you report it.');
}

function malformedJson(message: string | undefined): AppError {
  return new AppError('validation.failed', 'The body is not valid JSON.', { details: { fields: [{ path: '(body)', message: message ?? 'invalid JSON' }] } });
}
