import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RoutePlugin } from '../../../src/platform/app/route-plugin.js';
import { managementScope } from '../../../src/control/access/management-scope.js';
import type { PrincipalResolvers, UserPrincipal } from '../../../src/control/access/principal.js';
import type { ManagementRoute } from '../../../src/control/access/route-access.js';
import { createHttpApp } from '../../../src/platform/http/create-app.js';
import { sendData } from '../../../src/platform/http/envelope.js';
import { buildTestApp, injectJson, seedWebsite, type SeededWebsite, type TestApp } from '../../helpers/app.js';

let t: TestApp;
let site: SeededWebsite;
beforeAll(async () => {
  t = await buildTestApp();
  site = await seedWebsite(t.services);
});
afterAll(async () => t?.close());

/** A management scope holding `routes`, over the test app's data directory. */
async function scopeWith(routes: RoutePlugin, resolvers: Partial<PrincipalResolvers> = {}) {
  const app = createHttpApp({ settings: t.services.config.settings, apiVersion: 'test' });
  const routeTable: ManagementRoute[] = [];
  const all: PrincipalResolvers = {
    resolveApiKeyPrincipal: () => undefined,
    resolveUserPrincipal: () => undefined,
    ...resolvers,
  };
  await app.register(managementScope, { services: t.services, resolvers: all, routes: [routes], routeTable });
  await app.ready();
  return { app, routeTable };
}

describe('the management scope', () => {
  it('refuses to register a route that declares no config.access', async () => {
    const routes: RoutePlugin = async (app) => void app.get('/v1/undeclared', async () => 'x');
    await expect(scopeWith(routes)).rejects.toThrow(/GET \/v1\/undeclared declares no config\.access/);
  });

  it('refuses a route outside /v1, one under /v1/ingest, and a resource parameter the path lacks', async () => {
    await expect(
      scopeWith(
        async (app) =>
          void app.get('/other', { config: { access: { minRole: 'anonymous', access: 'read' } } }, async () => 'x'),
      ),
    ).rejects.toThrow(/not a management route/);
    await expect(
      scopeWith(
        async (app) =>
          void app.post(
            '/v1/ingest/thing',
            { config: { access: { minRole: 'anonymous', access: 'mutate' } } },
            async () => 'x',
          ),
      ),
    ).rejects.toThrow(/not a management route/);
    await expect(
      scopeWith(
        async (app) =>
          void app.get(
            '/v1/websites/:websiteId',
            { config: { access: { minRole: 'viewer', access: 'read', resource: { kind: 'website', param: 'id' } } } },
            async () => 'x',
          ),
      ),
    ).rejects.toThrow(/resource parameter :id/);
  });

  it('resolves the principal once per request and hands the handler the authorized website', async () => {
    let calls = 0;
    const user: UserPrincipal = {
      kind: 'user',
      userId: 'usr_1',
      sessionId: 'ses_1',
      memberships: (org) => (org === site.organizationId ? 'viewer' : undefined),
    };
    const routes: RoutePlugin = async (app) => {
      app.get<{ Params: { id: string } }>(
        '/v1/websites/:id/probe',
        { config: { access: { minRole: 'viewer', access: 'read', resource: { kind: 'website', param: 'id' } } } },
        async (request, reply) =>
          sendData(request, reply, {
            principal: request.principal.kind,
            domain: request.tenant?.website?.domain,
            role: request.tenant?.role,
          }),
      );
    };
    const { app, routeTable } = await scopeWith(routes, {
      resolveUserPrincipal: (token) => (calls++, token === 'good' ? user : undefined),
    });
    const res = await injectJson(app, {
      method: 'GET',
      url: `/v1/websites/${site.websiteId}/probe`,
      headers: { authorization: 'Bearer good' },
    });
    expect(res.json.data).toEqual({ principal: 'user', domain: site.domain, role: 'viewer' });
    expect(calls).toBe(1);
    expect(routeTable).toEqual([
      {
        method: 'GET',
        url: '/v1/websites/:id/probe',
        access: { minRole: 'viewer', access: 'read', resource: { kind: 'website', param: 'id' } },
      },
    ]);
    const bad = await injectJson(app, {
      method: 'GET',
      url: `/v1/websites/${site.websiteId}/probe`,
      headers: { authorization: 'Bearer expired' },
    });
    expect(bad.status).toBe(401);
    expect(bad.json.error.code).toBe('auth.unauthenticated');
    await app.close();
  });

  it('an anonymous route answers a caller with a bad credential as anonymous (a stale token does not block login)', async () => {
    const routes: RoutePlugin = async (app) => {
      app.post(
        '/v1/auth/probe',
        { config: { access: { minRole: 'anonymous', access: 'mutate' } } },
        async (request, reply) => sendData(request, reply, { principal: request.principal.kind }),
      );
    };
    const { app } = await scopeWith(routes);
    expect(
      (await injectJson(app, { method: 'POST', url: '/v1/auth/probe', headers: { authorization: 'Bearer stale' } }))
        .json.data,
    ).toEqual({ principal: 'anonymous' });
    await app.close();
  });

  it('a route that refuses API keys answers them 403 auth.forbidden', async () => {
    const routes: RoutePlugin = async (app) => {
      app.get(
        '/v1/auth/me-probe',
        { config: { access: { minRole: 'authenticated', access: 'read', apiKeys: false } } },
        async (request, reply) => sendData(request, reply, {}),
      );
    };
    const { app } = await scopeWith(routes, {
      resolveApiKeyPrincipal: (key) =>
        key === 'k'
          ? { kind: 'api_key', keyId: 'key_1', organizationId: site.organizationId, role: 'organization_admin' }
          : undefined,
    });
    const res = await injectJson(app, { method: 'GET', url: '/v1/auth/me-probe', headers: { 'x-api-key': 'k' } });
    expect(`${res.status} ${res.json.error.code}`).toBe('403 auth.forbidden');
    await app.close();
  });
});
