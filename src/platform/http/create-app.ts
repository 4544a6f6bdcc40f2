import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import type { Socket } from 'node:net';
import type { Settings } from '../config/index.js';
import type { AppError } from '../errors/index.js';
import {
  answerOnSocket,
  appErrorOfClientError,
  requestTimeoutError,
  trackActiveRequest,
  untrackActiveRequest,
} from './client-errors.js';
import { assertUtf8Charset, decodeUtf8Body } from './decode-body.js';
import { errorEnvelope, sendError } from './envelope.js';
import { sendErrorReply, toAppError } from './errors.js';
import { DEFAULT_BODY_LIMIT, MAX_PARAM_LENGTH } from './limits.js';
import { refuseNulInRequest } from './nul-guard.js';
import { clientRequestIdOf, requestIdOf } from './request-id.js';
import { jsonSerializerCompiler, zodValidatorCompiler } from './zod-compilers.js';
import { armBodyTimer, connectionTimeouts } from './timeouts.js';

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
  // The bodies of the /v1/auth routes (src/control/accounts/schemas.ts).
  // Not '*.code': that would blank err.code of every logged error.
  '*.currentPassword',
  '*.newPassword',
  '*.idToken',
  '*.totp',
  '*.recoveryCode',
  'body.code',
  '*.body.code',
];

/** Routes whose bodies may take ingestBodyTimeoutMs to arrive (bulk uploads); the rest get bodyTimeoutMs. */
const LONG_BODY_PREFIX = '/v1/ingest/';

/** The account routes answer tokens, codes and account data; their answers are never stored. */
const AUTH_PREFIX = '/v1/auth/';

/**
 * Whether an answer must carry Cache-Control: no-store: every answer under /v1/auth/, and any
 * other answer to a request that carried credentials unless its route chose its own caching (a
 * public node file is the same for everyone).
 */
function mustNotBeStored(request: FastifyRequest, reply: FastifyReply): boolean {
  if (request.url.startsWith(AUTH_PREFIX)) return true;
  const headers = request.headers;
  const credentialed =
    headers.authorization !== undefined || headers.cookie !== undefined || headers['x-api-key'] !== undefined;
  return credentialed && !reply.hasHeader('cache-control');
}

/** One answered request, for metrics: the route pattern ('unmatched' when none), not the URL. */
export interface AnsweredRequest {
  method: string;
  route: string;
  status: string;
}

export interface HttpAppOptions {
  settings: Pick<
    Settings,
    'headersTimeoutMs' | 'bodyTimeoutMs' | 'ingestBodyTimeoutMs' | 'keepAliveTimeoutMs' | 'trustProxy'
  >;
  /** Sent as X-Api-Version on every answer: the release whose OpenAPI document describes this API. */
  apiVersion: string;
  /** Fastify logger options; false (the default) logs nothing. */
  logger?: FastifyServerOptions['logger'];
  /** Called once per answer, including those written straight on the socket (no duration then). */
  onAnswered?(answered: AnsweredRequest, durationSeconds: number | undefined): void;
}

/**
 * The HTTP shell every route runs in, without routes and without listening: request ids, strict
 * UTF-8 JSON bodies (1 MiB unless a route sets more), header/body/keep-alive clocks, and every
 * answer, success or failure, in the contract envelope (docs/contract.md#envelope) with
 * X-Request-Id, including Node's own client errors and Fastify's framework errors.
 */
export function createHttpApp(options: HttpAppOptions): FastifyInstance {
  const timeouts = connectionTimeouts(options.settings);
  const onAnswered = options.onAnswered ?? (() => {});
  // Set once the app exists: answers straight on a socket (client-errors.ts), then logs and counts it.
  let answerRaw: (socket: Socket, appError: AppError, cause: string) => void = () => {};
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: DEFAULT_BODY_LIMIT,
    requestIdHeader: false,
    genReqId: requestIdOf,
    // Every log line of a request names the caller's own trace id beside ours, never instead of it.
    childLoggerFactory: (logger, bindings, childOptions, rawRequest) => {
      const clientRequestId = clientRequestIdOf(rawRequest);
      return logger.child(
        clientRequestId === undefined ? bindings : { ...bindings, client_request_id: clientRequestId },
        childOptions,
      );
    },
    return503OnClosing: true,
    forceCloseConnections: false,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // Node's own clocks: headers, and the whole request as a backstop to the per-route body timers below.
    http: {
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      connectionsCheckingInterval: timeouts.checkEveryMs,
    },
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: options.settings.keepAliveTimeoutMs,
    // request.ip (every per-address limit) is the X-Forwarded-For client only behind a listed proxy.
    ...(options.settings.trustProxy ? { trustProxy: [...options.settings.trustProxy] } : {}),
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
    const answer = answerOnSocket(socket, appError, options.apiVersion);
    if (!answer) return;
    app.log.info(
      { reqId: answer.requestId, code: appError.code, cause },
      'answered on the socket and closed the connection',
    );
    onAnswered(
      { method: answer.method ?? 'UNKNOWN', route: answer.route ?? 'unmatched', status: String(answer.status) },
      undefined,
    );
  };

  // Route schemas are zod: they validate requests and document answers (src/daemon/openapi).
  app.setValidatorCompiler(zodValidatorCompiler);
  app.setSerializerCompiler(jsonSerializerCompiler);

  // JSON only: a text/plain body is 415, not a string handed to a route.
  app.removeContentTypeParser('text/plain');
  // Strict UTF-8: invalid bytes are 422, not silently replaced
  // by U+FFFD. Same proto-poisoning guard as Fastify's parser.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    let text: string;
    try {
      assertUtf8Charset(request.headers['content-type']);
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
    reply.header('X-Api-Version', options.apiVersion);
    const socket = request.raw.socket as Socket | null;
    if (socket)
      trackActiveRequest(socket, {
        requestId: request.id,
        response: reply.raw,
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
      });
    if (!request.raw.complete && socket) {
      const limitMs = request.url.startsWith(LONG_BODY_PREFIX) ? timeouts.ingestBodyMs : timeouts.bodyMs;
      armBodyTimer(request, limitMs, () =>
        answerRaw(socket, requestTimeoutError(), `body not received within ${limitMs} ms`),
      );
    }
    done();
  });

  // Before any route's own validation: no path parameter or query value holds NUL.
  app.addHook('preValidation', (request, _reply, done) => {
    try {
      refuseNulInRequest(request);
    } catch (error) {
      return done(error as Error);
    }
    done();
  });

  // While shutting down, in-flight responses close their connection so keep-alive clients
  // cannot hold the process open.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (closing) reply.header('Connection', 'close');
    if (mustNotBeStored(request, reply)) reply.header('Cache-Control', 'no-store');
    done(null, payload);
  });

  app.addHook('onResponse', (request, reply, done) => {
    if (request.raw.socket) untrackActiveRequest(request.raw.socket as Socket, request.id);
    onAnswered(
      { method: request.method, route: request.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
    done();
  });

  app.setNotFoundHandler((request, reply) => {
    reply
      .code(404)
      .send(
        errorEnvelope(
          request,
          'route.not_found',
          `No route for ${request.method} ${request.url.split('?')[0]}. Every route is described in the OpenAPI document at GET /v1/openapi.json and in docs/api.md.`,
        ),
      );
  });

  app.setErrorHandler(async (error, request, reply) => {
    const appError = toAppError(error);
    if (appError.code === 'internal.error') request.log.error({ err: error }, 'unexpected error');
    else if (appError !== error && appError.code === 'service.storage_unavailable')
      request.log.error({ err: error }, 'storage fault: the data directory cannot take the write');
    return sendErrorReply(request, reply, appError);
  });

  return app;
}
