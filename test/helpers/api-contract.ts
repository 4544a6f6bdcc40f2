import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { inject } from 'vitest';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { PROBE_PATHS } from '../../src/daemon/probe-routes.js';
import { contractViolations } from './contract-violations.js';

/**
 * Checks real answers against the OpenAPI document the app serves, with Ajv (an independent JSON
 * Schema 2020-12 implementation): the status must be documented for the route, and the body must
 * match that response's schema. buildTestApp installs it on every in-process app, so every route
 * test is also a contract test; test/setup/api-contract.ts fails the test that caused a violation.
 */
export { contractViolations, type ContractViolation } from './contract-violations.js';

type OpenApiDocument = {
  paths: Record<
    string,
    Record<
      string,
      { responses?: Record<string, { description?: string; content?: Record<string, { schema?: unknown }> }> }
    >
  >;
};

/** Validators are compiled once per worker: every app of a test run serves the same document. */
let compiled: { documentText: string; ajv: Ajv2020; validators: Map<string, ValidateFunction | null> } | undefined;

function ajvFor(documentText: string, document: OpenApiDocument): NonNullable<typeof compiled> {
  if (compiled?.documentText === documentText) return compiled;
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
  addFormats.default(ajv);
  ajv.addSchema(document as object, 'openapi');
  compiled = { documentText, ajv, validators: new Map() };
  return compiled;
}

/** True when a route declares no response schema: @fastify/swagger then documents a bare 200 "Default Response". */
export function isUndescribed(operation: {
  responses?: Record<string, { description?: string; content?: unknown }>;
}): boolean {
  const placeholder = operation.responses?.['200'];
  return placeholder?.description === 'Default Response' && placeholder.content === undefined;
}

const pointerPart = (part: string) => part.replace(/~/g, '~0').replace(/\//g, '~1');

/** The document parsed once per text: every answer of every app in a worker is checked against it. */
let lastParsed: { documentText: string; document: OpenApiDocument } | undefined;
function parsedDocument(documentText: string): OpenApiDocument {
  if (lastParsed?.documentText !== documentText) lastParsed = { documentText, document: JSON.parse(documentText) };
  return lastParsed.document;
}

/** Why an answer breaks the document, or undefined when it keeps it. */
export function contractProblem(
  documentText: string,
  method: string,
  routeUrl: string,
  status: number,
  body: string,
): string | undefined {
  const document = parsedDocument(documentText);
  const path = routeUrl.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
  const operation = document.paths[path]?.[method.toLowerCase()];
  if (!operation) return `${method} ${path} is not in the document`;
  // A route without response schemas is not described yet (@fastify/swagger's placeholder); test/daemon/openapi/contract.app.test.ts lists those.
  if (isUndescribed(operation)) return undefined;
  const statusKey = operation.responses?.[String(status)]
    ? String(status)
    : operation.responses?.default
      ? 'default'
      : undefined;
  if (!statusKey)
    return `status ${status} is not documented (documented: ${Object.keys(operation.responses ?? {}).join(', ')}); body: ${body.slice(0, 300)}`;
  const content = operation.responses![statusKey]!.content;
  if (!content) return status === 204 && body !== '' ? 'a 204 answer has a body' : undefined;
  const media = content['application/json'];
  if (!media?.schema) return undefined;
  const { ajv, validators } = ajvFor(documentText, document);
  const key = `${method} ${path} ${statusKey}`;
  if (!validators.has(key))
    validators.set(
      key,
      ajv.getSchema(
        `openapi#/paths/${pointerPart(path)}/${method.toLowerCase()}/responses/${statusKey}/content/${pointerPart('application/json')}/schema`,
      ) ?? null,
    );
  const validate = validators.get(key);
  if (!validate) return `no schema at ${key}`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return `the body is not JSON: ${body.slice(0, 200)}`;
  }
  if (validate(parsed)) return undefined;
  return `the body does not match the documented schema: ${ajv.errorsText(validate.errors, { dataVar: 'body' })}; body: ${body.slice(0, 400)}`;
}

/**
 * Documents by the routes of the app: every app with the same routes serves the same document (no
 * route schema depends on a setting), and generating one converts every route's schemas, which
 * each test's new app would pay again. Kept in this worker, and in the run's sandbox folder for
 * the files that run after in other forks (each file runs in a fresh one), written whole.
 */
const documents = new Map<string, string>();
function documentOf(app: FastifyInstance): string {
  const routes = app.printRoutes({ commonPrefix: false });
  let text = documents.get(routes);
  if (text !== undefined) return text;
  const file = join(inject('sandboxes'), `openapi-${createHash('sha256').update(routes).digest('hex')}.json`);
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    text = JSON.stringify(app.swagger());
    const partial = `${file}.${process.pid}.partial`;
    writeFileSync(partial, text);
    renameSync(partial, file);
  }
  documents.set(routes, text);
  return text;
}

/** Records every /v1 and probe answer of `app` that breaks the document it serves. Call before app.ready(). */
export function checkAnswersAgainstDocument(app: FastifyInstance): void {
  let documentText: string | undefined;
  app.addHook('onSend', (request, reply, payload, done) => {
    const routeUrl = request.routeOptions.url;
    if (
      routeUrl === undefined ||
      !(routeUrl.startsWith('/v1/') || PROBE_PATHS.has(routeUrl)) ||
      request.method === 'HEAD'
    )
      return done(null, payload);
    documentText ??= documentOf(app);
    const body =
      typeof payload === 'string'
        ? payload
        : Buffer.isBuffer(payload)
          ? payload.toString('utf8')
          : payload == null
            ? ''
            : undefined;
    if (body !== undefined) {
      const problem = contractProblem(documentText, request.method, routeUrl, reply.statusCode, body);
      if (problem)
        contractViolations.push({ route: `${request.method} ${routeUrl}`, status: reply.statusCode, problem });
    }
    done(null, payload);
  });
}
