import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOrgApp, outcome, type OrgTestApp } from './support.js';

/**
 * The organization routes as the OpenAPI document describes them (GET /v1/openapi.json): each
 * has a summary and its tag, documents its success answers with a schema, and lists the error
 * codes its handler answers (config.errors), beyond those its access and schemas imply. Answers
 * themselves are checked against the document by the test setup (test/setup/api-contract.ts).
 */

type Operation = {
  summary?: string;
  tags?: string[];
  requestBody?: unknown;
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
};

/** Route -> [tag, success statuses, codes the handler answers]. */
const ROUTES: Record<string, [string, string[], string[]]> = {
  'GET /v1/organizations': ['organizations', ['200'], []],
  'POST /v1/organizations': ['organizations', ['201'], ['auth.unauthenticated']],
  'GET /v1/organizations/{id}': ['organizations', ['200'], ['organization.not_found']],
  'PATCH /v1/organizations/{id}': ['organizations', ['200'], ['organization.not_found']],
  'DELETE /v1/organizations/{id}': [
    'organizations',
    ['204'],
    ['organization.not_empty', 'privacy.erasure_forbidden', 'privacy.erasure_in_progress'],
  ],
  'GET /v1/organizations/{id}/members': ['members', ['200'], []],
  'POST /v1/organizations/{id}/members': [
    'members',
    ['201', '202'],
    ['auth.forbidden', 'organization.member_exists', 'entitlement.limit_reached'],
  ],
  'PATCH /v1/organizations/{id}/members/{userId}': [
    'members',
    ['200'],
    ['auth.forbidden', 'member.not_found', 'organization.last_owner'],
  ],
  'DELETE /v1/organizations/{id}/members/{userId}': [
    'members',
    ['204'],
    ['auth.forbidden', 'member.not_found', 'organization.last_owner'],
  ],
  'POST /v1/organizations/{id}/api-keys': ['api-keys', ['201'], ['auth.forbidden']],
  'GET /v1/organizations/{id}/api-keys': ['api-keys', ['200'], []],
  'DELETE /v1/organizations/{id}/api-keys/{keyId}': ['api-keys', ['204'], ['organization.api_key_not_found']],
  'POST /v1/organizations/{id}/transfer': [
    'transfers',
    ['201'],
    ['organization.transfer_pending', 'privacy.erasure_in_progress', 'validation.failed'],
  ],
  'POST /v1/organizations/{id}/transfer/cancel': ['transfers', ['200'], ['organization.transfer_not_found']],
  'POST /v1/organizations/transfers/{token}/accept': [
    'transfers',
    ['202'],
    ['auth.mail_token_invalid', 'auth.mail_token_expired', 'auth.mail_token_used', 'auth.forbidden'],
  ],
  'POST /v1/organizations/{id}/erase': [
    'organizations',
    ['202'],
    ['privacy.erasure_forbidden', 'privacy.erasure_in_progress', 'validation.failed'],
  ],
  'GET /v1/organizations/{id}/audit': ['audit', ['200'], []],
  'POST /v1/billing/checkout': ['billing', [], ['billing.unconfigured', 'quota.rate_limited']],
  'POST /v1/billing/portal': ['billing', [], ['billing.unconfigured', 'quota.rate_limited']],
};

/** Every error code the document lists for an operation, from the code enum of each error response. */
function documentedCodes(operation: Operation): string[] {
  return Object.entries(operation.responses)
    .filter(([status]) => Number(status) >= 400)
    .flatMap(([, response]) => {
      const schema = response.content?.['application/json']?.schema as
        { allOf?: Array<{ properties?: { error?: { properties?: { code?: { enum?: string[] } } } } }> } | undefined;
      return schema?.allOf?.[1]?.properties?.error?.properties?.code?.enum ?? [];
    });
}

let t: OrgTestApp;
let paths: Record<string, Record<string, Operation>>;
beforeAll(async () => {
  t = await buildOrgApp();
  const res = await t.call(undefined, 'GET', '/v1/openapi.json');
  expect(outcome(res)).toBe('200');
  paths = res.json.paths;
});
afterAll(async () => t.close());

describe('the organization routes in the OpenAPI document', () => {
  it.each(Object.entries(ROUTES))(
    '%s: summary, tag, a schema for each success answer and the codes its handler answers',
    (route, [tag, successes, codes]) => {
      const [method, path] = route.split(' ') as [string, string];
      const operation = paths[path]?.[method.toLowerCase()];
      expect(operation, `${route} is not in the document`).toBeDefined();
      expect(operation!.summary).toEqual(expect.any(String));
      expect(operation!.tags).toEqual([tag]);
      const documented = Object.keys(operation!.responses).filter((status) => Number(status) < 400);
      expect(documented).toEqual(successes);
      for (const status of successes)
        if (status !== '204')
          expect(
            operation!.responses[status]!.content?.['application/json']?.schema,
            `${route} ${status}`,
          ).toBeDefined();
      expect(documentedCodes(operation!)).toEqual(expect.arrayContaining(codes));
    },
  );

  it('the billing routes document only their refusal: 503 billing.unconfigured, no success answer', () => {
    for (const path of ['/v1/billing/checkout', '/v1/billing/portal']) {
      const refusal = paths[path]!.post!.responses['503']!;
      const schema = refusal.content!['application/json']!.schema as {
        allOf: Array<{ properties: { error: { properties: { code: { enum: string[] } } } } }>;
      };
      expect(schema.allOf[1]!.properties.error.properties.code.enum).toContain('billing.unconfigured');
    }
  });

  it('bodies are strict (an unknown field is refused) and an API key request may leave the body out: name and role have defaults', () => {
    const body = (path: string, method: string) =>
      (
        paths[path]![method]!.requestBody as {
          content: Record<
            string,
            {
              schema: {
                additionalProperties?: boolean;
                default?: unknown;
                properties?: Record<string, { default?: unknown }>;
              };
            }
          >;
        }
      ).content['application/json']!.schema;
    for (const [path, method] of [
      ['/v1/organizations', 'post'],
      ['/v1/organizations/{id}', 'patch'],
      ['/v1/organizations/{id}/members', 'post'],
      ['/v1/organizations/{id}/transfer', 'post'],
      ['/v1/organizations/{id}/erase', 'post'],
    ] as const) {
      expect(body(path, method).additionalProperties, `${method} ${path}`).toBe(false);
    }
    const apiKey = body('/v1/organizations/{id}/api-keys', 'post');
    expect(apiKey.default).toEqual({});
    expect(apiKey.properties).toMatchObject({ name: { default: 'api key' }, role: { default: 'editor' } });
  });
});
