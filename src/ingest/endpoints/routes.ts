import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z, ZodError } from 'zod';
import type { RoutePlugin, RoutePluginOptions } from '../../platform/app/index.js';
import {
  AppError,
  fieldProblemsFromZod,
  storageUnavailableError,
  type ErrorCode,
} from '../../platform/errors/index.js';
import {
  assertUtf8Charset,
  sendData,
  sendErrorReply,
  toAppError,
  dataEnvelope,
  validatedInHandler,
  consumeRateLimit,
  type RateLimitRule,
} from '../../platform/http/index.js';
import { readMasterKey } from '../../platform/storage/index.js';
import { acceptItems } from './accept.js';
import { deleteItems } from './delete-items.js';
import { upsertFieldMappings } from './field-mappings.js';
import { recordHeartbeat } from './heartbeat.js';
import {
  INGEST_BODY_LIMIT,
  MAX_BATCH_ITEMS,
  BatchRequestSchema,
  DeleteRequestSchema,
  HeartbeatRequestSchema,
  ItemRequestSchema,
  SchemaRequestSchema,
} from '../../platform/contract/index.js';
import { createSqliteIdempotencyStore, createSqliteNonceStore } from './stores/sqlite-stores.js';
import { createPostgresIdempotencyStore, createPostgresNonceStore } from './stores/postgres-stores.js';
import { isOwnerGone, PROCESS_OWNER } from './stores/in-flight-owner.js';
import type { IdempotencyStore, InFlightLease, NonceStore } from './stores/types.js';
import {
  BatchBodySchema,
  BatchResultSchema,
  DeleteResultSchema,
  HeartbeatResultSchema,
  IngestHeadersSchema,
  ItemBodySchema,
  ItemResultSchema,
  SchemaResultSchema,
} from './schemas.js';
import { sweepPendingRawItems } from './sweep.js';
import { claimedConnectorId, verifyIngestRequest, type VerifiedIngest } from './verify.js';
import { createIdleCheckpointer } from './wal-checkpoint.js';
import { verificationDeps, acceptPluginProof } from '../../control/verification/index.js';
import { readIngestWebsite } from './website-context.js';

/**
 * A completed response is replayed for 24 h. An in-flight record is abandoned as soon as its
 * process is known dead (same host), else after 5 min.
 */
const IDEMPOTENCY_TTL_MS = 24 * 3600_000;
const IN_FLIGHT_LEASE: InFlightLease = {
  ttlMs: 5 * 60_000,
  owner: PROCESS_OWNER,
  isOwnerGone: (owner) => isOwnerGone(owner),
};
const SWEEP_INTERVAL_MS = 5 * 60_000;

interface RequestState {
  verified: VerifiedIngest;
  idempotencyKey: string;
  finished: boolean;
  errorCode?: string;
}

export interface IngestRoutesOptions extends RoutePluginOptions {
  /** Replace the stores (e.g. with Redis ones); default: the control store's (control.sqlite, or PostgreSQL). */
  nonces?: NonceStore;
  idempotency?: IdempotencyStore;
}

function invalid(message: string, error: ZodError): AppError {
  return new AppError('validation.failed', message, { details: { fields: fieldProblemsFromZod(error.issues) } });
}

function headerOf(request: FastifyRequest, name: string): string | undefined {
  const v = request.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * The five signed POST endpoints under /v1/ingest. Everything here is one encapsulated plugin:
 * the raw-body JSON parser (16 MiB), the signature preHandler and the idempotency hooks apply to
 * these routes only.
 */
export const ingestRoutes: RoutePlugin<IngestRoutesOptions> = async (app, options) => {
  const kit = prepareIngest(options);
  // Hash the exact bytes: keep the body as a Buffer and parse it in the verifier.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer', bodyLimit: INGEST_BODY_LIMIT },
    (request, body, done) => {
      try {
        assertUtf8Charset(request.headers['content-type']);
      } catch (error) {
        return done(error as Error, undefined);
      }
      done(null, body);
    },
  );
  setIngestErrorHandler(app, kit);
  addSignatureHooks(app, kit);
  addIdempotencyHooks(app, kit);
  registerItemRoutes(app, kit);
  registerConnectorRoutes(app, kit);
  addSweeps(app, kit);
};

type IngestApp = Parameters<RoutePlugin<IngestRoutesOptions>>[0];

/** What the hooks and routes of the plugin share. */
type IngestKit = ReturnType<typeof prepareIngest>;

/**
 * The stores (the PostgreSQL control store's when there is one, else the embedded SQLite ones,
 * unless given), the state of each request, the two rate limit rules, and what the routes read:
 * the verified request and the website it names.
 */
function prepareIngest(options: IngestRoutesOptions) {
  const { services } = options;
  const deps = {
    controlDb: services.controlDb,
    masterKey: readMasterKey(services.layout),
    nonces:
      options.nonces ??
      (services.postgres ? createPostgresNonceStore(services.postgres) : createSqliteNonceStore(services.controlDb)),
  };
  const idempotency =
    options.idempotency ??
    (services.postgres
      ? createPostgresIdempotencyStore(services.postgres)
      : createSqliteIdempotencyStore(services.controlDb));
  const states = new WeakMap<FastifyRequest, RequestState>();
  const checkpointer = createIdleCheckpointer({
    onError: (error) => services.logger.warn({ err: error }, 'idle WAL checkpoint failed'),
  });
  const { settings } = services.config;
  const verification = verificationDeps(services);
  const perConnector: RateLimitRule = { name: 'ingest', limit: settings.ingestRateLimitPerMinute, windowMs: 60_000 };
  const authFailures: RateLimitRule = {
    name: 'ingest.auth_failures',
    limit: settings.ingestAuthFailuresPerMinute,
    windowMs: 60_000,
  };
  const verifiedOf = (request: FastifyRequest) => states.get(request)!.verified;
  const websiteOf = (request: FastifyRequest, websiteId: string) =>
    readIngestWebsite(services.controlDb, websiteId, headerOf(request, 'x-site-domain'));
  return {
    services,
    deps,
    idempotency,
    states,
    checkpointer,
    verification,
    perConnector,
    authFailures,
    verifiedOf,
    websiteOf,
  };
}

/** Every error is answered as an envelope; its code is kept for the request's metric. */
function setIngestErrorHandler(app: IngestApp, { states }: IngestKit): void {
  app.setErrorHandler(async (error, request, reply) => {
    const appError = toAppError(error);
    const state = states.get(request);
    if (state) state.errorCode = appError.code;
    else (request as FastifyRequest & { ingestErrorCode?: string }).ingestErrorCode = appError.code;
    if (appError.code === 'internal.error') request.log.error({ err: error }, 'unexpected error in ingest');
    else if (appError !== error && appError.code === 'service.storage_unavailable')
      request.log.error({ err: error }, 'storage fault in ingest: the data directory cannot take the write');
    return sendErrorReply(request, reply, appError);
  });
}

/**
 * Before a route runs: the signature, the connector's rate limit, the Idempotency-Key. A request
 * that fails authentication spends the failure budgets of its client address and of the
 * connector it claims; past either it is answered 429. A correctly signed request never looks at
 * them: nobody else's failures can refuse it (docs/decisions.md).
 */
function addSignatureHooks(
  app: IngestApp,
  { services, deps, idempotency, states, checkpointer, perConnector, authFailures }: IngestKit,
): void {
  const chargeFailure = async (request: FastifyRequest, error: unknown): Promise<never> => {
    const now = services.now();
    const claimed = claimedConnectorId(request.headers);
    const keys = [`address:${request.ip}`, ...(claimed === undefined ? [] : [`connector:${claimed}`])];
    const refusals = await Promise.all(
      keys.map((key) =>
        consumeRateLimit(services.rateLimits, authFailures, key, now).then(
          () => undefined,
          (refusal: unknown) => refusal,
        ),
      ),
    );
    throw refusals.find((refusal) => refusal !== undefined) ?? error;
  };

  app.addHook('preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
    checkpointer.active();
    const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    let verified: VerifiedIngest;
    try {
      verified = await verifyIngestRequest(
        { method: request.method, url: request.url, headers: request.headers, rawBody, nowMs: services.now() },
        deps,
      );
    } catch (error) {
      if (toAppError(error).status === 401) await chargeFailure(request, error);
      throw error;
    }
    // Per connector, counted once it is authenticated: nobody else can spend a connector's budget.
    await consumeRateLimit(services.rateLimits, perConnector, verified.connector.id, services.now(), reply);
    const key = headerOf(request, 'idempotency-key');
    if (!key)
      throw new AppError(
        'validation.missing_idempotency_key',
        'Send an Idempotency-Key header (e.g. a UUID) and reuse it when you retry the same request.',
      );
    if (key.length > 255)
      throw new AppError('validation.failed', 'Idempotency-Key must be at most 255 characters.', {
        details: { fields: [{ path: 'Idempotency-Key', message: 'too long' }] },
      });
    let begun;
    try {
      begun = await idempotency.begin(verified.connector.id, key, verified.bodySha256, services.now(), IN_FLIGHT_LEASE);
    } catch (error) {
      throw (
        storageUnavailableError(error) ??
        new AppError(
          'service.unavailable',
          'The idempotency store is unavailable; retry shortly with the same Idempotency-Key.',
          { cause: error },
        )
      );
    }
    if (begun.outcome === 'conflict')
      throw new AppError(
        'ingest.duplicate',
        'This Idempotency-Key was already used with a different body: use a new key for a new request.',
      );
    if (begun.outcome === 'in_flight')
      throw new AppError(
        'service.unavailable',
        'A request with this Idempotency-Key is still being handled; retry shortly with the same key.',
      );
    if (begun.outcome === 'replay') {
      services.metrics.ingestRequests.inc({ endpoint: endpointOf(request), outcome: 'idempotent_replay' });
      return reply
        .code(begun.statusCode)
        .header('Idempotent-Replayed', 'true')
        .type('application/json; charset=utf-8')
        .send(withRequestId(begun.response, request.id));
    }
    states.set(request, { verified, idempotencyKey: key, finished: false });
  });
}

/** After a route: its answer kept for replays (or the key released on a 5xx), made durable, and counted. */
function addIdempotencyHooks(app: IngestApp, { services, deps, idempotency, states }: IngestKit): void {
  app.addHook('onSend', async (request, reply, payload) => {
    const state = states.get(request);
    if (state && !state.finished) {
      state.finished = true;
      const scope = state.verified.connector.id;
      try {
        if (reply.statusCode >= 500) await idempotency.release(scope, state.idempotencyKey);
        else
          await idempotency.complete(
            scope,
            state.idempotencyKey,
            reply.statusCode,
            typeof payload === 'string' ? payload : String(payload ?? ''),
            services.now(),
            IDEMPOTENCY_TTL_MS,
          );
      } catch (error) {
        request.log.error({ err: error }, 'could not store the idempotency record');
      }
    }
    // The stores write without an fsync; one grouped WAL sync makes the nonce and the idempotency
    // record durable before any answer leaves (docs/contract.md#durability).
    try {
      await Promise.all([deps.nonces.flush?.(), idempotency.flush?.()]);
    } catch (error) {
      request.log.error({ err: error }, 'could not sync the nonce and idempotency records');
    }
    return payload;
  });

  app.addHook('onResponse', async (request, reply) => {
    if (reply.getHeader('Idempotent-Replayed')) return;
    const code =
      states.get(request)?.errorCode ?? (request as FastifyRequest & { ingestErrorCode?: string }).ingestErrorCode;
    services.metrics.ingestRequests.inc({
      endpoint: endpointOf(request),
      outcome: reply.statusCode < 400 ? 'ok' : (code ?? String(reply.statusCode)),
    });
  });
}

/**
 * A route's options: its body and headers documented but validated here, after the signature
 * (validatedInHandler); what every ingest route can answer beyond the signing codes (src/daemon/openapi
 * adds those): a revoked or out-of-scope connector, a reused Idempotency-Key, a deleted website.
 */
function signed(doc: {
  summary: string;
  body: z.ZodType;
  response: z.ZodType;
  errors?: readonly ErrorCode[];
  /** The route writes the website's graph: with several daemons, its owner answers it. */
  writesGraph?: boolean;
}) {
  return {
    bodyLimit: INGEST_BODY_LIMIT,
    config: {
      ...(doc.writesGraph ? { graphOf: 'connector' as const } : {}),
      errors: [
        'auth.token_revoked',
        'auth.scope_violation',
        'ingest.duplicate',
        'website.not_found',
        ...(doc.errors ?? []),
      ] satisfies ErrorCode[],
    },
    schema: {
      summary: doc.summary,
      tags: ['ingest'],
      headers: validatedInHandler(IngestHeadersSchema),
      body: validatedInHandler(doc.body),
      response: { 200: doc.response },
    },
  };
}

/** The item routes: a batch, one item, deletes. */
function registerItemRoutes(app: IngestApp, { services, checkpointer, verifiedOf, websiteOf }: IngestKit): void {
  app.post(
    '/v1/ingest/batch',
    signed({
      summary: 'Send up to 500 items; each is stored or refused on its own (partial false: all or none)',
      body: BatchBodySchema,
      response: dataEnvelope(BatchResultSchema).describe('The outcome of each item, in request order'),
      errors: ['ingest.batch_too_large', 'ingest.batch_rejected'],
      writesGraph: true,
    }),
    async (request, reply) => {
      services.freeSpace.assertAboveFloor();
      const v = verifiedOf(request);
      if (Array.isArray(v.body.items) && v.body.items.length > MAX_BATCH_ITEMS) {
        throw new AppError(
          'ingest.batch_too_large',
          `The batch has ${v.body.items.length} items; send at most ${MAX_BATCH_ITEMS} per request.`,
          { details: { max: MAX_BATCH_ITEMS, received: v.body.items.length } },
        );
      }
      const parsed = BatchRequestSchema.safeParse(v.body);
      if (!parsed.success) throw invalid('The batch is not valid; see details.fields.', parsed.error);
      const website = websiteOf(request, v.websiteId);
      return sendData(
        request,
        reply,
        await acceptItems({
          services,
          website,
          connectorId: v.connector.id,
          rawItems: parsed.data.items,
          partial: parsed.data.partial,
          endpoint: 'batch',
          checkpointer,
        }),
      );
    },
  );

  app.post(
    '/v1/ingest/item',
    signed({
      summary: 'Send one item; an invalid item is an error result, not a refused request',
      body: ItemBodySchema,
      response: dataEnvelope(ItemResultSchema).describe("The item's outcome"),
      writesGraph: true,
    }),
    async (request, reply) => {
      services.freeSpace.assertAboveFloor();
      const v = verifiedOf(request);
      const parsed = ItemRequestSchema.safeParse(v.body);
      if (!parsed.success) throw invalid('The request is not valid; see details.fields.', parsed.error);
      const website = websiteOf(request, v.websiteId);
      const result = await acceptItems({
        services,
        website,
        connectorId: v.connector.id,
        rawItems: [parsed.data.item],
        partial: true,
        endpoint: 'item',
        checkpointer,
      });
      return sendData(request, reply, result.results[0]);
    },
  );

  app.post(
    '/v1/ingest/delete',
    signed({
      summary: 'Tombstone items by id; what was derived from them leaves the graph and the live node',
      body: DeleteRequestSchema,
      response: dataEnvelope(DeleteResultSchema).describe(
        'The ids tombstoned and not found, and the job that applies it',
      ),
      writesGraph: true,
    }),
    async (request, reply) => {
      const v = verifiedOf(request);
      const parsed = DeleteRequestSchema.safeParse(v.body);
      if (!parsed.success) throw invalid('The delete request is not valid; see details.fields.', parsed.error);
      const website = websiteOf(request, v.websiteId);
      return sendData(request, reply, await deleteItems(services, website, parsed.data.ids, parsed.data.reason));
    },
  );
}

/** What a connector tells about itself: its heartbeat and its field mappings. */
function registerConnectorRoutes(app: IngestApp, { services, verification, verifiedOf, websiteOf }: IngestKit): void {
  app.post(
    '/v1/ingest/heartbeat',
    signed({
      summary: "Report the connector's state; answers what to do next and the server clock",
      body: HeartbeatRequestSchema,
      response: dataEnvelope(HeartbeatResultSchema).describe('The next action and the server time'),
    }),
    async (request, reply) => {
      const v = verifiedOf(request);
      const parsed = HeartbeatRequestSchema.safeParse(v.body);
      if (!parsed.success) throw invalid('The heartbeat is not valid; see details.fields.', parsed.error);
      const website = websiteOf(request, v.websiteId);
      // The signature covers the body: a token in it is signed with the connector's key (method plugin).
      if (parsed.data.verification_token)
        acceptPluginProof(verification, {
          websiteId: website.id,
          connectorId: v.connector.id,
          token: parsed.data.verification_token,
        });
      return sendData(request, reply, recordHeartbeat(services, website, v.connector.id, parsed.data.connector_state));
    },
  );

  app.post(
    '/v1/ingest/schema',
    signed({
      summary: 'Add field mappings from source fields to item fields; a conflict with an existing one stores nothing',
      body: SchemaRequestSchema,
      response: dataEnvelope(SchemaResultSchema).describe('Every mapping of the website and their version'),
      errors: ['ingest.schema_conflict'],
    }),
    async (request, reply) => {
      const v = verifiedOf(request);
      const parsed = SchemaRequestSchema.safeParse(v.body);
      if (!parsed.success) throw invalid('The mappings are not valid; see details.fields.', parsed.error);
      websiteOf(request, v.websiteId);
      return sendData(
        request,
        reply,
        upsertFieldMappings(services.controlDb, v.websiteId, parsed.data.mappings, services.now()),
      );
    },
  );
}

/**
 * Safety net for accepted rows whose job enqueue failed: once at start, then periodically.
 * At start, also forget in-flight idempotency records of dead processes (a daemon killed mid-request).
 * On close, the timer and the idle WAL checkpointer stop.
 */
function addSweeps(app: IngestApp, { services, idempotency, checkpointer }: IngestKit): void {
  let timer: NodeJS.Timeout | undefined;
  app.addHook('onReady', async () => {
    try {
      const released = await idempotency.releaseAbandoned((owner) => isOwnerGone(owner));
      if (released > 0)
        services.logger.warn({ records: released }, 'released in-flight idempotency records of a process that is gone');
    } catch (error) {
      services.logger.error({ err: error }, 'abandoned idempotency record sweep failed');
    }
    try {
      const n = sweepPendingRawItems(services);
      if (n > 0) services.logger.warn({ items: n }, 're-enqueued pending raw items without a content.ingest job');
    } catch (error) {
      services.logger.error({ err: error }, 'pending raw item sweep failed');
    }
    timer = setInterval(() => {
      try {
        sweepPendingRawItems(services, { olderThanMs: 60_000 });
      } catch (error) {
        services.logger.error({ err: error }, 'pending raw item sweep failed');
      }
    }, SWEEP_INTERVAL_MS);
    timer.unref();
  });
  app.addHook('onClose', async () => {
    clearInterval(timer);
    checkpointer.stop();
  });
}

/**
 * A cached envelope with this request's id in meta.requestId, so the body matches the X-Request-Id
 * header of the replay (the logs of the replay carry that id too).
 */
function withRequestId(cachedEnvelope: string, requestId: string): string {
  try {
    const envelope = JSON.parse(cachedEnvelope) as { meta?: Record<string, unknown> };
    if (
      envelope === null ||
      typeof envelope !== 'object' ||
      envelope.meta === null ||
      typeof envelope.meta !== 'object'
    )
      return cachedEnvelope;
    envelope.meta.requestId = requestId;
    return JSON.stringify(envelope);
  } catch {
    return cachedEnvelope;
  }
}

function endpointOf(request: FastifyRequest): string {
  return (request.routeOptions.url ?? request.url).split('/').pop() ?? 'unknown';
}
