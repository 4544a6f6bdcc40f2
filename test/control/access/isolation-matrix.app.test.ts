import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserPrincipal } from '../../../src/control/access/principal.js';
import type { ManagementRoute } from '../../../src/control/access/route-access.js';
import { createApiKey } from '../../../src/control/records/api-keys.js';
import { ROLES, roleAtLeast, type Role } from '../../../src/control/records/record-types.js';
import {
  buildTestApp,
  fakeClock,
  injectJson,
  seedWebsite,
  type SeededWebsite,
  type TestApp,
} from '../../helpers/app.js';

/**
 * The isolation matrix (docs/contract.md#tenant-isolation): every management route the app
 * registers, as its route table declares it, called by every kind of caller of the route's own
 * organization and of a foreign one. A route added under /v1 is walked here without editing
 * this file; one that forgets config.access does not even register.
 */

type Org = 'own' | 'foreign';
interface Caller {
  name: string;
  headers: Record<string, string>;
  /** The caller's role in each organization (undefined: not a member); platform callers pass everywhere. */
  roleIn: Partial<Record<Org, Role>>;
  kind: 'api_key' | 'user' | 'platform' | 'anonymous';
}

const API_KEY_ROLES = ['viewer', 'editor', 'organization_admin'] as const;

/**
 * Minimum role and access of each management route as docs/contract.md#routes gives it. A new
 * route gets its line here, so its declaration is checked against the contract, not only
 * against itself.
 */
const CONTRACT_ROUTES: Record<string, string> = {
  'POST /v1/auth/register': 'anonymous mutate',
  'POST /v1/auth/verify-email': 'anonymous mutate',
  'POST /v1/auth/login': 'anonymous mutate',
  'POST /v1/auth/google': 'anonymous mutate',
  'POST /v1/auth/refresh': 'anonymous mutate',
  'POST /v1/auth/password/forgot': 'anonymous mutate',
  'POST /v1/auth/password/reset': 'anonymous mutate',
  'POST /v1/auth/logout': 'authenticated mutate',
  'POST /v1/auth/logout-all': 'authenticated mutate',
  'POST /v1/auth/password/change': 'authenticated mutate',
  'POST /v1/auth/2fa/setup': 'authenticated mutate',
  'POST /v1/auth/2fa/activate': 'authenticated mutate',
  'POST /v1/auth/2fa/disable': 'authenticated mutate',
  'POST /v1/auth/2fa/recovery-codes': 'authenticated mutate',
  'GET /v1/auth/me': 'authenticated read',
  'GET /v1/auth/2fa': 'authenticated read',
  'POST /v1/websites/:id/publish': 'editor mutate',
  'DELETE /v1/websites/:id/node': 'organization_admin mutate',
  'GET /v1/websites/:id/versions': 'viewer read',
  'POST /v1/websites/:id/rollback': 'editor mutate',
  'GET /v1/websites/:id/jobs': 'viewer read',
  'GET /v1/websites/:id/jobs/:jobId': 'viewer read',
  'GET /v1/organizations': 'authenticated read',
  'POST /v1/organizations': 'authenticated mutate',
  'GET /v1/organizations/:id': 'viewer read',
  'PATCH /v1/organizations/:id': 'organization_admin mutate',
  'DELETE /v1/organizations/:id': 'organization_owner mutate',
  'GET /v1/organizations/:id/members': 'viewer read',
  'POST /v1/organizations/:id/members': 'organization_admin mutate',
  'PATCH /v1/organizations/:id/members/:userId': 'organization_admin mutate',
  'DELETE /v1/organizations/:id/members/:userId': 'organization_admin mutate',
  'GET /v1/organizations/:id/invitations': 'organization_admin read',
  'DELETE /v1/organizations/:id/invitations/:invitationId': 'organization_admin mutate',
  'POST /v1/organizations/:id/api-keys': 'organization_admin mutate',
  'GET /v1/organizations/:id/api-keys': 'organization_admin read',
  'DELETE /v1/organizations/:id/api-keys/:keyId': 'organization_admin mutate',
  'POST /v1/organizations/:id/transfer': 'organization_owner mutate',
  'POST /v1/organizations/:id/transfer/cancel': 'organization_owner mutate',
  'POST /v1/organizations/transfers/:token/accept': 'authenticated mutate',
  'POST /v1/organizations/:id/erase': 'organization_owner mutate',
  'GET /v1/organizations/:id/audit': 'organization_admin read',
  'GET /v1/organizations/:id/entitlements': 'viewer read',
  'GET /v1/organizations/:id/usage': 'viewer read',
  'GET /v1/websites/:id/knowledge/search': 'viewer read',
  'GET /v1/websites/:id/entities/:eid/facts': 'viewer read',
  'GET /v1/websites/:id/entities/:eid/related': 'viewer read',
  'GET /v1/websites/:id/node/preview': 'viewer read',
  // MCP over HTTP (docs/mcp.md): a read of the website's knowledge; GET and DELETE answer 405 to anyone allowed.
  'POST /v1/websites/:id/mcp': 'viewer read',
  'GET /v1/websites/:id/mcp': 'viewer read',
  'DELETE /v1/websites/:id/mcp': 'viewer read',
  'GET /v1/websites/:id/analytics': 'viewer read',
  'POST /v1/websites/:id/webhooks': 'organization_admin mutate',
  'GET /v1/websites/:id/webhooks': 'organization_admin read',
  'GET /v1/websites/:id/webhooks/:webhookId': 'organization_admin read',
  'PATCH /v1/websites/:id/webhooks/:webhookId': 'organization_admin mutate',
  'DELETE /v1/websites/:id/webhooks/:webhookId': 'organization_admin mutate',
  'POST /v1/websites/:id/webhooks/:webhookId/rotate': 'organization_admin mutate',
  'POST /v1/websites/:id/webhooks/:webhookId/test': 'organization_admin mutate',
  'GET /v1/websites/:id/webhooks/:webhookId/deliveries': 'organization_admin read',
  'GET /v1/websites/:id/webhooks/:webhookId/deliveries/:deliveryId': 'organization_admin read',
  'GET /v1/websites/:id/webhooks/:webhookId/deliveries/:deliveryId/attempts': 'organization_admin read',
  'POST /v1/websites/:id/webhooks/:webhookId/deliveries/:deliveryId/resend': 'organization_admin mutate',
  'GET /v1/organizations/:id/websites': 'viewer read',
  'POST /v1/organizations/:id/websites': 'organization_admin mutate',
  'GET /v1/websites/:id': 'viewer read',
  'PATCH /v1/websites/:id': 'editor mutate',
  'DELETE /v1/websites/:id': 'organization_admin mutate',
  'POST /v1/websites/:id/transfer': 'organization_admin mutate',
  'POST /v1/websites/:id/aliases': 'organization_admin mutate',
  'DELETE /v1/websites/:id/aliases/:domain': 'organization_admin mutate',
  'GET /v1/websites/:id/verification': 'viewer read',
  'POST /v1/websites/:id/verification/challenge': 'editor mutate',
  'POST /v1/websites/:id/verification/check': 'editor mutate',
  'POST /v1/websites/:id/connectors': 'organization_admin mutate',
  'GET /v1/websites/:id/connectors': 'viewer read',
  'POST /v1/connectors/:cid/rotate': 'organization_admin mutate',
  'POST /v1/connectors/:cid/suspend': 'organization_admin mutate',
  'POST /v1/connectors/:cid/resume': 'organization_admin mutate',
  'DELETE /v1/connectors/:cid': 'organization_admin mutate',
};

let t: TestApp;
const sites = {} as Record<Org, SeededWebsite>;
const callers: Caller[] = [];
/** Fake user sessions: the bearer token names the user (the accounts feature plugs real ones into the same slot). */
const users = new Map<string, UserPrincipal>();

beforeAll(async () => {
  t = await buildTestApp({
    clock: fakeClock(),
    principalResolvers: { resolveUserPrincipal: (token) => users.get(token) },
  });
  sites.own = await seedWebsite(t.services, 'own.example');
  sites.foreign = await seedWebsite(t.services, 'foreign.example');
  for (const org of ['own', 'foreign'] as const) {
    for (const role of API_KEY_ROLES) {
      const key = createApiKey(
        t.services.controlDb,
        { organizationId: sites[org].organizationId, role },
        t.services.now(),
      ).key;
      callers.push({
        name: `${org} api key ${role}`,
        headers: { authorization: `Bearer ${key}` },
        roleIn: { [org]: role },
        kind: 'api_key',
      });
    }
    for (const role of ROLES) {
      const token = `user-${org}-${role}`;
      users.set(token, {
        kind: 'user',
        userId: `usr_${org}_${role}`,
        sessionId: `ses_${token}`,
        memberships: (id) => (id === sites[org].organizationId ? role : undefined),
      });
      callers.push({
        name: `${org} user ${role}`,
        headers: { authorization: `Bearer ${token}` },
        roleIn: { [org]: role },
        kind: 'user',
      });
    }
  }
  users.set('user-platform-admin', {
    kind: 'user',
    userId: 'usr_admin',
    sessionId: 'ses_admin',
    platformRole: 'admin',
    memberships: () => undefined,
  });
  callers.push({
    name: 'platform admin',
    headers: { authorization: 'Bearer user-platform-admin' },
    roleIn: {},
    kind: 'platform',
  });
  callers.push({ name: 'anonymous', headers: {}, roleIn: {}, kind: 'anonymous' });
}, 60_000);
afterAll(async () => t?.close());

/** What the contract says `caller` gets on `route` of the own organization's resource. */
function expectedAnswer(route: ManagementRoute, caller: Caller): 'allowed' | string {
  const access = route.access;
  if (access.minRole === 'anonymous') return 'allowed';
  if (caller.kind === 'anonymous') return '401 auth.unauthenticated';
  if (caller.kind === 'api_key' && 'apiKeys' in access && access.apiKeys === false) return '403 auth.forbidden';
  if (access.minRole === 'authenticated') return 'allowed';
  if (caller.kind === 'platform') return 'allowed';
  const role = caller.roleIn.own;
  if (role === undefined)
    return access.access === 'read' ? `404 ${access.resource.kind}.not_found` : '403 auth.tenant_mismatch';
  return roleAtLeast(role, access.minRole) ? 'allowed' : '403 auth.forbidden';
}

/** The route's path with its resource parameter set to the own organization's website, organization or connector. */
function pathOf(route: ManagementRoute): string {
  const resource = 'resource' in route.access ? route.access.resource : undefined;
  return route.url.replace(/:([A-Za-z_]+)/g, (_m, param: string) => {
    if (param !== resource?.param) return 'x';
    return { website: sites.own.websiteId, organization: sites.own.organizationId, connector: sites.own.connectorId }[
      resource.kind
    ];
  });
}

describe('the isolation matrix: every management route x every role x own and foreign organization', () => {
  it('every management route declares the minimum role and access docs/contract.md#routes gives it', () => {
    const declared = Object.fromEntries(
      t.app.managementRoutes.map((r) => [`${r.method} ${r.url}`, `${r.access.minRole} ${r.access.access}`]),
    );
    expect(Object.keys(declared).length).toBeGreaterThanOrEqual(Object.keys(CONTRACT_ROUTES).length);
    for (const [route, access] of Object.entries(declared))
      expect(access, `${route}: add it to CONTRACT_ROUTES with its role from docs/contract.md#routes`).toBe(
        CONTRACT_ROUTES[route],
      );
  });

  it('each caller gets what docs/contract.md#tenant-isolation and #routes say, and an allowed one reaches the handler', async () => {
    const mismatches: string[] = [];
    for (const route of t.app.managementRoutes) {
      for (const caller of callers) {
        // A body no route schema accepts: an allowed caller reaches the handler and gets its 422 (or the route's answer), nothing is published.
        const body =
          route.method === 'GET'
            ? {}
            : { payload: { isolationMatrixProbe: true }, headers: { 'content-type': 'application/json' } };
        const res = await injectJson(t.app, {
          method: route.method as 'POST',
          url: pathOf(route),
          ...body,
          headers: { ...caller.headers, ...body.headers },
        });
        const got = res.status < 400 ? 'allowed' : `${res.status} ${res.json?.error?.code}`;
        const want = expectedAnswer(route, caller);
        const ok =
          want === 'allowed'
            ? res.status !== 401 &&
              res.status !== 403 &&
              res.status < 500 &&
              !/^404 (website|organization|connector)\.not_found$/.test(got)
            : got === want;
        if (!ok) mismatches.push(`${route.method} ${route.url} as ${caller.name}: got ${got}, want ${want}`);
      }
    }
    expect(mismatches).toEqual([]);
  }, 180_000); // about 2,000 requests through the whole app: past the default timeout on a loaded machine

  it('an unknown or revoked API key is 401 auth.unauthenticated on every route that needs a credential', async () => {
    for (const route of t.app.managementRoutes.filter((r) => r.access.minRole !== 'anonymous')) {
      const res = await injectJson(t.app, {
        method: route.method as 'POST',
        url: pathOf(route),
        headers: { 'x-api-key': 'nk_live_00000000000000000000000000000000' },
      });
      expect(`${res.status} ${res.json.error.code}`, `${route.method} ${route.url}`).toBe('401 auth.unauthenticated');
    }
  });
});
