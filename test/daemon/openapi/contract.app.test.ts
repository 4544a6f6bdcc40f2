import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserPrincipal } from '../../../src/control/access/principal.js';
import { contractViolations, isUndescribed } from '../../helpers/api-contract.js';
import {
  buildTestApp,
  fakeClock,
  injectJson,
  injectSigned,
  seedWebsite,
  type SeededWebsite,
  type TestApp,
} from '../../helpers/app.js';

/**
 * The contract test (issue: the API as a product): every /v1 operation of the OpenAPI document is
 * described, and a request to each one, without a credential and then as the owner with a body
 * built from the documented schema, gets an answer the document allows (status, error code and
 * body, checked by Ajv in test/helpers/api-contract.ts). The feature tests check their own
 * success answers the same way, since every in-process app checks every answer.
 */
type Json = Record<string, any>;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

let t: TestApp;
let site: SeededWebsite;
let document: Json;
const users = new Map<string, UserPrincipal>();

beforeAll(async () => {
  t = await buildTestApp({
    clock: fakeClock(),
    principalResolvers: { resolveUserPrincipal: (token) => users.get(token) },
  });
  site = await seedWebsite(t.services, 'contract.example');
  const owner = t.services.controlDb
    .prepare("SELECT user_id FROM members WHERE organization_id = ? AND role = 'organization_owner'")
    .pluck()
    .get(site.organizationId) as string;
  users.set('owner-session', {
    kind: 'user',
    userId: owner,
    sessionId: 'ses_contract',
    memberships: (id) => (id === site.organizationId ? 'organization_owner' : undefined),
  });
  document = (await injectJson(t.app, { method: 'GET', url: '/v1/openapi.json' })).json;
}, 60_000);
afterAll(async () => t?.close());

function operations(): Array<{ method: string; path: string; operation: Json }> {
  return Object.entries(document.paths as Record<string, Json>)
    .flatMap(([path, item]) =>
      METHODS.filter((method) => item[method]).map((method) => ({ method, path, operation: item[method] as Json })),
    )
    .sort((a, b) => (a.method === 'delete' ? 1 : 0) - (b.method === 'delete' ? 1 : 0) || a.path.localeCompare(b.path));
}

/** A value the schema accepts, as small as possible: required fields only, first enum member, shortest string. */
function exampleOf(schema: Json | undefined, depth = 0): unknown {
  if (!schema || depth > 8) return undefined;
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const branch = schema.anyOf?.[0] ?? schema.oneOf?.[0] ?? schema.allOf?.[0];
  if (branch) return exampleOf(branch, depth + 1);
  const type = Array.isArray(schema.type) ? schema.type.find((x: string) => x !== 'null') : schema.type;
  switch (type) {
    case 'object':
      return Object.fromEntries(
        (schema.required ?? []).map((name: string) => [name, exampleOf(schema.properties?.[name], depth + 1)]),
      );
    case 'array':
      return Array.from({ length: schema.minItems ?? 0 }, () => exampleOf(schema.items, depth + 1));
    case 'integer':
    case 'number':
      return schema.minimum ?? schema.exclusiveMinimum ?? 1;
    case 'boolean':
      return true;
    case 'string': {
      const byFormat: Record<string, string> = {
        email: 'someone@contract.example',
        uri: 'https://contract.example/hook',
        'date-time': '2026-03-02T10:00:00Z',
        date: '2026-03-02',
      };
      const text = byFormat[schema.format] ?? 'contract';
      return text
        .padEnd(schema.minLength ?? 0, 'x')
        .slice(0, schema.maxLength ?? text.length + (schema.minLength ?? 0));
    }
    default:
      return undefined;
  }
}

/** The path with each parameter set to the seeded organization, website or connector (an unknown id elsewhere). */
function concretePath(path: string): string {
  return path.replace(/\{([A-Za-z_]+)\}/g, (_m, name: string) => {
    if (path.startsWith('/v1/organizations/') && name === 'id') return site.organizationId;
    if (name === 'id') return site.websiteId;
    if (name === 'cid') return site.connectorId;
    return `unknown-${name}`;
  });
}

describe('the OpenAPI document against the routes', () => {
  it('describes every /v1 operation: a summary, a tag, a described success answer, and each path parameter', () => {
    const problems: string[] = [];
    for (const { method, path, operation } of operations()) {
      const route = `${method.toUpperCase()} ${path}`;
      if (isUndescribed(operation)) problems.push(`${route}: no response schema (schema.response)`);
      if (typeof operation.summary !== 'string' || operation.summary === '') problems.push(`${route}: no summary`);
      if (!Array.isArray(operation.tags) || operation.tags.length !== 1)
        problems.push(`${route}: needs exactly one tag`);
      // A route of a feature this build leaves unconfigured (billing) answers only its *.unconfigured error.
      const unconfigured = JSON.stringify(operation.responses?.['503'] ?? {}).includes('.unconfigured"');
      // A method a path refuses by design (the stateless MCP endpoint's GET and DELETE) answers only 405.
      const refused = JSON.stringify(operation.responses?.['405'] ?? {}).includes('request.method_not_allowed');
      if (!unconfigured && !refused && !Object.keys(operation.responses ?? {}).some((status) => status.startsWith('2')))
        problems.push(`${route}: no 2xx answer`);
      const documented = new Set(
        (operation.parameters ?? []).filter((p: Json) => p.in === 'path').map((p: Json) => p.name),
      );
      for (const [, name] of path.matchAll(/\{([A-Za-z_]+)\}/g))
        if (!documented.has(name)) problems.push(`${route}: path parameter ${name} is not documented`);
    }
    expect(problems).toEqual([]);
  });

  it('every operation answers a request without a credential, and one by the owner, as the document says', async () => {
    const answered: string[] = [];
    for (const { method, path, operation } of operations()) {
      const url = concretePath(path);
      const body = exampleOf(operation.requestBody?.content?.['application/json']?.schema);
      const payload =
        body === undefined ? {} : { payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } };
      const requests = path.startsWith('/v1/ingest/')
        ? [
            () => injectJson(t.app, { method: 'POST', url, ...payload }),
            () =>
              injectSigned(t.app, url, {
                token: site.connectorToken,
                websiteId: site.websiteId,
                body: { website_id: site.websiteId, ...(body as Json) },
                nowMs: t.services.now(),
              }),
          ]
        : [
            () => injectJson(t.app, { method: method.toUpperCase() as 'GET', url, ...payload }),
            () =>
              injectJson(t.app, {
                method: method.toUpperCase() as 'GET',
                url,
                ...payload,
                headers: { ...payload.headers, authorization: 'Bearer owner-session' },
              }),
          ];
      for (const send of requests) {
        const res = await send();
        answered.push(`${method.toUpperCase()} ${path} ${res.status}`);
      }
    }
    // The hook checked each answer against the document; report them here, by route, rather than in afterEach.
    expect(contractViolations.splice(0)).toEqual([]);
    expect(answered.length).toBe(operations().length * 2);
  });
});
