import fastifySwagger from '@fastify/swagger';
import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import type { OpenAPIV3_1 } from 'openapi-types';
import { z } from 'zod';
import { NODECTL_VERSION } from '../../platform/config/index.js';
import type { RouteAccess } from '../../control/access/index.js';
import { ERROR_CODES, type ErrorCode } from '../../platform/errors/index.js';
import { PROBE_PATHS } from '../probe-routes.js';
import { codesByStatus, routeErrorCodes } from './route-errors.js';

/** The document describes the /v1 API and the probes; node files are described by each node's own files. */
const DOCUMENTED_PREFIX = '/v1/';
const isDocumented = (url: string) => url.startsWith(DOCUMENTED_PREFIX) || PROBE_PATHS.has(url);

/** Where the reference generated from the document lives (scripts/api-reference.mjs). */
export const API_REFERENCE = 'docs/api.md';

const SECURITY_SCHEMES: Record<string, OpenAPIV3_1.SecuritySchemeObject> = {
  bearerAuth: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      'A user access token from POST /v1/auth/login (15 minutes; renew with POST /v1/auth/refresh). An organization API key is also accepted as the bearer token.',
  },
  apiKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Api-Key',
    description: 'An organization API key (POST /v1/organizations/{id}/api-keys), shown once at creation.',
  },
  connectorToken: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'connectorId.secret',
    description: 'The connector credential, shown once when the connector is created or rotated.',
  },
  connectorSignature: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Signature',
    description:
      'HMAC-SHA256 over the canonical request (docs/contract.md#connector-signing), sent with X-Timestamp, X-Nonce, X-Body-Sha256 and Idempotency-Key. The reference client (@nodectl/cli/client) signs for you.',
  },
};

const ERROR_ENVELOPE: OpenAPIV3_1.SchemaObject = {
  type: 'object',
  description: 'Every failed answer (docs/contract.md#envelope); error.code is one of those listed for the status.',
  required: ['ok', 'error', 'meta'],
  properties: {
    ok: { const: false },
    error: {
      type: 'object',
      required: ['code', 'message', 'details', 'retryable'],
      properties: {
        code: { type: 'string', enum: Object.keys(ERROR_CODES).sort() },
        message: { type: 'string', description: 'What went wrong and what to do; for people, not for parsing.' },
        details: { type: 'object', additionalProperties: true },
        retryable: { type: 'boolean' },
      },
    },
    meta: { type: 'object', required: ['requestId'], properties: { requestId: { type: 'string' } } },
  },
};

/** What the document says about one route beyond its schemas: who may call and what can go wrong. */
interface RouteExtras {
  readonly security: OpenAPIV3_1.SecurityRequirementObject[] | undefined;
  /** The least role that may call (x-required-role); absent on public and signed routes. */
  readonly requiredRole: string | undefined;
  /** True when the body schema accepts no body at all (@fastify/swagger marks every body required). */
  readonly bodyOptional: boolean;
  readonly errors: ErrorCode[];
}

/** Every operation states its security; `[]` says a public one needs no credential (not "unspecified"). */
function securityOf(url: string, access: RouteAccess | undefined): OpenAPIV3_1.SecurityRequirementObject[] {
  if (url.startsWith('/v1/ingest/')) return [{ connectorToken: [], connectorSignature: [] }];
  if (!access || access.minRole === 'anonymous') return [];
  if ('apiKeys' in access && access.apiKeys === false) return [{ bearerAuth: [] }];
  return [{ bearerAuth: [] }, { apiKey: [] }];
}

function acceptsNoBody(body: unknown): boolean {
  return body instanceof z.ZodType && body.safeParse(undefined).success;
}

/** `/v1/websites/:id` -> `/v1/websites/{id}`, as the document spells paths. */
function openapiPath(url: string): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/**
 * A readable operationId from the method and path: the static segments, and `By<Param>` for a
 * path that ends in a parameter, so an item never shares the id of its collection:
 * GET /v1/websites/:id/knowledge/search -> getWebsitesKnowledgeSearch, GET /v1/websites/:id/jobs/:jobId
 * -> getWebsitesJobsByJobId.
 */
export function operationIdOf(method: string, url: string): string {
  const segments = url.replace(/^\/v1\//, '').split('/');
  const words = segments
    .filter((segment) => segment !== '' && !segment.startsWith(':'))
    .flatMap((segment) => segment.split(/[-_.]/));
  const last = segments.at(-1) ?? '';
  if (last.startsWith(':')) words.push('by', last.slice(1));
  return [method.toLowerCase(), ...words]
    .map((word, i) => (i === 0 ? word : word.charAt(0).toUpperCase() + word.slice(1)))
    .join('');
}

function errorResponse(codes: readonly ErrorCode[]): OpenAPIV3_1.ResponseObject {
  return {
    description: codes.map((code) => `\`${code}\`: ${ERROR_CODES[code].description}`).join('\n\n'),
    content: {
      'application/json': {
        schema: {
          allOf: [
            { $ref: '#/components/schemas/ErrorEnvelope' },
            { type: 'object', properties: { error: { type: 'object', properties: { code: { enum: [...codes] } } } } },
          ],
        },
      },
    },
  };
}

/**
 * Registers @fastify/swagger so every route registered after it is described in an OpenAPI 3.1
 * document generated from the zod schemas the route validates with (fastify-type-provider-zod
 * turns them into JSON Schema 2020-12). This module adds what the schemas cannot say: the
 * security scheme each route's declared access implies, and every error code it can answer,
 * grouped by status, in the contract envelope. Call before registering any route.
 */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  const extras = new Map<string, RouteExtras>();
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'nodectl API',
        version: NODECTL_VERSION,
        description: `The /v1 API of a nodectl daemon: accounts, organizations, websites, verification, connectors, signed ingest, publishing, knowledge and analytics. Every answer is the contract envelope; every answer carries X-Request-Id and X-Api-Version. Reference: ${API_REFERENCE}.`,
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      },
      // Relative: the paths are on the daemon that serves this document, wherever it listens.
      servers: [{ url: '/', description: 'the nodectl daemon serving this document' }],
      components: { securitySchemes: SECURITY_SCHEMES },
    },
    transform(input) {
      const route = input.route as RouteOptions;
      if (!isDocumented(input.url)) return { schema: { hide: true }, url: input.url };
      const transformed = jsonSchemaTransform({ ...input, schema: input.schema ?? {} });
      const access = (route.config as { access?: RouteAccess } | undefined)?.access;
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      for (const method of methods)
        extras.set(`${method.toLowerCase()} ${openapiPath(input.url)}`, {
          security: securityOf(input.url, access),
          requiredRole: access && access.minRole !== 'anonymous' ? access.minRole : undefined,
          bodyOptional: acceptsNoBody(route.schema?.body),
          errors: routeErrorCodes(route),
        });
      const schema = transformed.schema as FastifySchema & { operationId?: string };
      return {
        url: transformed.url,
        schema: {
          ...schema,
          operationId: schema.operationId ?? operationIdOf(methods[0]!, input.url),
          tags: schema.tags ?? [input.url.split('/')[2]!],
        },
      };
    },
    transformObject(input) {
      const document = jsonSchemaTransformObject(input) as OpenAPIV3_1.Document;
      return assertUniqueOperationIds(withExtras(document, extras));
    },
  });
}

/** Adds security and the error responses to each operation, and the shared ErrorEnvelope schema. */
function withExtras(document: OpenAPIV3_1.Document, extras: ReadonlyMap<string, RouteExtras>): OpenAPIV3_1.Document {
  document.components = {
    ...document.components,
    schemas: { ...document.components?.schemas, ErrorEnvelope: ERROR_ENVELOPE },
  };
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of ['get', 'post', 'put', 'patch', 'delete'] as const) {
      const operation = item?.[method];
      const extra = extras.get(`${method} ${path}`);
      if (!operation || !extra) continue;
      operation.security = extra.security;
      if (extra.bodyOptional && operation.requestBody && !('$ref' in operation.requestBody))
        operation.requestBody.required = false;
      if (extra.requiredRole) (operation as Record<string, unknown>)['x-required-role'] = extra.requiredRole;
      const responses: Record<string, unknown> = { ...operation.responses };
      for (const [status, codes] of codesByStatus(extra.errors)) responses[String(status)] = errorResponse(codes);
      (operation as { responses?: unknown }).responses = responses;
    }
  }
  return document;
}

/** Client generators name methods after operationIds: two alike would clash, so the app refuses to start. */
function assertUniqueOperationIds(document: OpenAPIV3_1.Document): OpenAPIV3_1.Document {
  const seen = new Map<string, string>();
  for (const [path, item] of Object.entries(document.paths ?? {}))
    for (const method of ['get', 'post', 'put', 'patch', 'delete'] as const) {
      const id = item?.[method]?.operationId;
      if (id === undefined) continue;
      const other = seen.get(id);
      if (other !== undefined)
        throw new Error(`operationId ${id} of ${method.toUpperCase()} ${path} is also that of ${other}`);
      seen.set(id, `${method.toUpperCase()} ${path}`);
    }
  return document;
}
