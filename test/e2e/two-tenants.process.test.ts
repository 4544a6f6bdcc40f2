import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManagementRoute } from '../../src/control/access/route-access.js';
import { buildTestApp } from '../helpers/app.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { seedConnector } from '../helpers/seed.js';

/**
 * Two tenants on one real daemon over loopback HTTP (docs/contract.md#tenant-isolation): tenant B,
 * as a signed-in owner and with its own organization_admin API key, calls every management route
 * that names a resource with tenant A's ids. Reads must answer 404 with the resource's not_found
 * code, mutations 403 auth.tenant_mismatch; no answer may carry anything of tenant A, and A's
 * resources must be untouched afterwards. The route list is the app's own route table, so a new
 * route is walked here without editing this file.
 */

interface Tenant {
  email: string;
  orgName: string;
  domain: string;
  accessToken: string;
  organizationId: string;
  websiteId: string;
  apiKey: string;
}

interface Answer {
  status: number;
  body: string;
  json: { ok: boolean; data?: any; error?: { code: string } };
}

let daemon: TestDaemon;
let routes: ManagementRoute[];
const tenants = {} as Record<'a' | 'b', Tenant>;

async function call(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Answer> {
  const res = await fetch(`${daemon.url}${path}`, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text, json: text ? JSON.parse(text) : {} };
}

async function expectOk(answer: Answer | Promise<Answer>, status = 200): Promise<any> {
  const res = await answer;
  expect(res.status, res.body).toBe(status);
  return res.json.data;
}

async function registerTenant(label: 'a' | 'b'): Promise<Tenant> {
  const email = `owner-${label}@tenant-${label}.example`;
  const password = `correct horse battery ${label} staple`;
  const orgName = `Tenant ${label.toUpperCase()} Holdings`;
  const domain = `www.tenant-${label}.example`;
  await expectOk(call('POST', '/v1/auth/register', {}, { email, password, orgName }), 201);
  const { accessToken } = await expectOk(call('POST', '/v1/auth/login', {}, { email, password }));
  const auth = { authorization: `Bearer ${accessToken}` };
  const organizations = await expectOk(call('GET', '/v1/organizations', auth));
  const organizationId = organizations.items[0].id as string;
  const website = await expectOk(
    call('POST', `/v1/organizations/${organizationId}/websites`, auth, { domain, name: orgName }),
    201,
  );
  const key = await expectOk(
    call('POST', `/v1/organizations/${organizationId}/api-keys`, auth, { name: 'ci', role: 'organization_admin' }),
    201,
  );
  return { email, orgName, domain, accessToken, organizationId, websiteId: website.id, apiKey: key.key ?? key.secret };
}

beforeAll(async () => {
  const app = await buildTestApp();
  routes = [...app.app.managementRoutes];
  await app.close();
  daemon = await startTestDaemon();
  tenants.a = await registerTenant('a');
  tenants.b = await registerTenant('b');
}, 90_000);

afterAll(async () => {
  await daemon?.stop();
});

/** Tenant A's id for the route's resource parameter; other parameters get a placeholder. */
async function pathOnTenantA(route: ManagementRoute, connectorId: string): Promise<string> {
  const resource = 'resource' in route.access ? route.access.resource : undefined;
  return route.url.replace(/:([A-Za-z_]+)/g, (_m, param: string) => {
    if (param !== resource?.param) return 'x';
    return { website: tenants.a.websiteId, organization: tenants.a.organizationId, connector: connectorId }[
      resource.kind
    ];
  });
}

describe('two tenants on a spawned daemon', () => {
  it('tenant B, signed in or with its API key, gets 404 on every read and 403 auth.tenant_mismatch on every mutation of tenant A, and learns nothing of A', async () => {
    // A connector of tenant A, written by the operator beside the running daemon (from this process).
    const connectorId = (
      await seedConnector(daemon.dataDir, tenants.a.websiteId, { type: 'files', sourceTypes: ['page'] })
    ).id;

    const onResource = routes.filter((r) => 'resource' in r.access && r.access.resource !== undefined);
    expect(onResource.length).toBeGreaterThan(20);
    const callersOfB = {
      'B owner session': { authorization: `Bearer ${tenants.b.accessToken}` },
      'B admin API key': { 'x-api-key': tenants.b.apiKey },
    };
    const secretsOfA = [tenants.a.email, tenants.a.orgName, tenants.a.domain, tenants.a.apiKey];
    const mismatches: string[] = [];
    let calls = 0;
    for (const route of onResource) {
      const path = await pathOnTenantA(route, connectorId);
      for (const [name, headers] of Object.entries(callersOfB)) {
        const res = await call(
          route.method,
          path,
          headers,
          route.method === 'GET' || route.method === 'DELETE' ? undefined : { probe: true },
        );
        calls++;
        const got = `${res.status} ${res.json.error?.code}`;
        const refusedForKeys =
          res.status === 403 && res.json.error?.code === 'auth.forbidden' && name.endsWith('API key');
        const want =
          route.access.access === 'read' ? `404 ${route.access.resource.kind}.not_found` : '403 auth.tenant_mismatch';
        if (got !== want && !refusedForKeys)
          mismatches.push(`${route.method} ${route.url} as ${name}: got ${got}, want ${want}`);
        for (const secret of secretsOfA)
          if (res.body.includes(secret))
            mismatches.push(`${route.method} ${route.url} as ${name}: the answer names ${secret}`);
      }
    }
    expect(mismatches).toEqual([]);
    expect(calls).toBe(onResource.length * 2);

    // Tenant A is whole: its organization, website and connector read as before.
    const auth = { authorization: `Bearer ${tenants.a.accessToken}` };
    expect((await expectOk(call('GET', `/v1/organizations/${tenants.a.organizationId}`, auth))).name).toBe(
      tenants.a.orgName,
    );
    expect((await expectOk(call('GET', `/v1/websites/${tenants.a.websiteId}`, auth))).domain).toBe(tenants.a.domain);
    const connectors = await expectOk(call('GET', `/v1/websites/${tenants.a.websiteId}/connectors`, auth));
    expect(connectors.items.map((c: { id: string }) => c.id)).toEqual([connectorId]);
  }, 120_000);
});
