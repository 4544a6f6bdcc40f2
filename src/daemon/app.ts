import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { newUlid } from '../ids/ulid.js';
import { ZodError } from 'zod';
import type { Settings } from '../config/settings.js';
import { AppError, fieldProblemsFromZod, isAppError } from '../errors/app-error.js';
import { answerOnSocket, appErrorOfClientError, requestTimeoutError, trackActiveRequest, untrackActiveRequest } from './client-errors.js';
import { decodeUtf8Body } from './decode-body.js';
import { errorEnvelope, sendError } from './envelope.js';
import { ROUTE_PLUGINS } from './route-plugins.js';
import type { AppServices } from '../app/services.js';

/** 1 MiB everywhere but /v1/ingest/* (16 MiB, set by the ingest plugin): docs/contract.md#limits. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** The longest path parameter: a 253-character domain in a node file URL fits; longer is 414. */
const MAX_PARAM_LENGTH = 256;

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
  const timeouts = connectionTimeouts(services.config.settings);
  // Set once the app exists: answers straight on a socket (client-errors.ts), then logs and counts it.
  let answerRaw: (socket: Socket, appError: AppError, cause: string) => void = () => {};
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
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // Node's own clocks: headers, and the whole request as a backstop to the per-route body timers below.
    http: { headersTimeout: timeouts.headersMs, requestTimeout: timeouts.requestMs, connectionsCheckingInterval: timeouts.checkEveryMs },
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: services.config.settings.keepAliveTimeoutMs,
    // Bad percent-encoding and over-long path parameters, found before any hook runs.
    frameworkErrors: (error, request, reply) => {
      reply.header('X-Request-Id', request.id);
      return sendError(request, reply, toAppError(error));
    },
    // Errors Node's HTTP parser or connection checker reports (431, 408, malformed requests).
    clientErrorHandler(error, socket) {
      const appError = appErrorOfClientError(error);
      if (!appError) return void socket.destroy();
      answerRaw(socket, appError, error.message);
    },
  });
  answerRaw = (socket, appError, cause) => {
    const answer = answerOnSocket(socket, appError);
    if (!answer) return;
    app.log.info({ reqId: answer.requestId, code: appError.code, cause }, 'answered on the socket and closed the connection');
    services.metrics.httpRequests.inc({ method: answer.method ?? 'UNKNOWN', route: answer.route ?? 'unmatched', status: String(answer.status) });
  };

  // JSON only: a text/plain body is 415, not a string handed to a route.
  app.removeContentTypeParser('text/plain');
  // Strict UTF-8: invalid bytes are 422, not silently replaced by U+FFFD. Same proto-poisoning guard as Fastify's parser.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    let text: string;
    try {
      text = decodeUtf8Body(body as Buffer);
    } catch (error) {
      return done(error as Error, undefined);
    }
    parseJson(request, text, done);
  });

  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });

  // Callback-style hooks: these run on every request, and skip a promise each.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    const socket = request.raw.socket as Socket | null;
    if (socket) trackActiveRequest(socket, { requestId: request.id, response: reply.raw, method: request.method, route: request.routeOptions.url ?? 'unmatched' });
    if (!request.raw.complete && socket) {
      const limitMs = request.url.startsWith('/v1/ingest/') ? timeouts.ingestBodyMs : timeouts.bodyMs;
      armBodyTimer(request, limitMs, () => answerRaw(socket, requestTimeoutError(), `body not received within ${limitMs} ms`));
    }
    done();
  });

  // While shutting down, in-flight responses close their connection so keep-alive clients
  // cannot hold the process open.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('Connection', 'close');
    done(null, payload);
  });

  app.addHook('onResponse', (request, reply, done) => {
    if (request.raw.socket) untrackActiveRequest(request.raw.socket as Socket, request.id);
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

interface ConnectionTimeouts {
  headersMs: number;
  bodyMs: number;
  ingestBodyMs: number;
  /** Node's whole-request limit: headers plus the longest body time, so the body timers answer first. */
  requestMs: number;
  checkEveryMs: number;
}

/** The daemon's connection clocks from the settings (headersTimeoutMs, bodyTimeoutMs, ingestBodyTimeoutMs). */
export function connectionTimeouts(settings: Pick<Settings, 'headersTimeoutMs' | 'bodyTimeoutMs' | 'ingestBodyTimeoutMs'>): ConnectionTimeouts {
  const headersMs = settings.headersTimeoutMs;
  const requestMs = headersMs + Math.max(settings.bodyTimeoutMs, settings.ingestBodyTimeoutMs);
  // Node checks expired connections on an interval (30 s by default): check often enough that
  // the headers timeout is kept within a quarter of itself.
  const checkEveryMs = Math.max(10, Math.min(1000, Math.floor(headersMs / 4)));
  return { headersMs, bodyMs: settings.bodyTimeoutMs, ingestBodyMs: settings.ingestBodyTimeoutMs, requestMs, checkEveryMs };
}

/**
 * Answers 408 request.timeout and closes the connection when the body has not fully arrived
 * `limitMs` after the headers (a client that sends half a body would otherwise hold a connection
 * and a request open indefinitely).
 */
function armBodyTimer(request: FastifyRequest, limitMs: number, onTimeout: () => void): void {
  const timer = setTimeout(() => {
    if (!request.raw.complete) onTimeout();
  }, limitMs);
  const clear = (): void => clearTimeout(timer);
  request.raw.once('end', clear).once('close', clear);
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
    case 'FST_ERR_BAD_URL':
      return new AppError('request.malformed', 'The URL path is not valid percent-encoding: encode reserved and non-ASCII characters as %XX of their UTF-8 bytes.');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new AppError('request.uri_too_long', `A path segment is longer than ${MAX_PARAM_LENGTH} characters: no id, domain or file name is that long.`);
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('request.malformed', 'The body is shorter or longer than its Content-Length header: send the exact length.');
  }
  if (error instanceof SyntaxError || (fastifyError.statusCode === 400 && /JSON/i.test(fastifyError.message ?? ''))) return malformedJson(fastifyError.message);
  if (fastifyError.validation) return new AppError('validation.failed', fastifyError.message ?? 'invalid request', { details: { fields: [{ path: '(request)', message: fastifyError.message ?? '' }] } });
  // Any other client-side failure the framework or Node reports (e.g. a body cut off mid-upload).
  if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    return new AppError('request.malformed', 'The request could not be read: send a complete, well-formed HTTP request.');
  }
  return new AppError('internal.error', 'An unexpected error happened. Quote the request id when you report it.');
}

function malformedJson(message: string | undefined): AppError {
  return new AppError('validation.failed', 'The body is not valid JSON.', { details: { fields: [{ path: '(body)', message: message ?? 'invalid JSON' }] } });
}
