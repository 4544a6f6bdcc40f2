import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { accountsContextOf } from '../../../src/control/accounts/http-context.js';
import { looksLikeJwt, userPrincipalResolver } from '../../../src/control/accounts/user-principal.js';
import type { RoutePlugin } from '../../../src/platform/app/route-plugin.js';
import { apiKeyPrincipalResolver } from '../../../src/control/access/api-key-principal.js';
import { managementScope } from '../../../src/control/access/management-scope.js';
import type { ManagementRoute } from '../../../src/control/access/route-access.js';
import { sendData } from '../../../src/platform/http/envelope.js';
import { createHttpApp } from '../../../src/platform/http/create-app.js';
import { seedWebsite, injectJson, type SeededWebsite } from '../../helpers/app.js';
import { bearer, failure, openAuthApp, registerAndLogin, type AuthApp, type SignedInUser } from './http-support.js';

/**
 * A user's access token acts on management routes by the user's memberships (docs/contract.md
 * #tenant-isolation): the real resolver of the daemon, the real management scope. No website read
 * route exists yet, so a second app carries a read and a mutation route on a website, declared as
 * any feature declares them, over the same services (the same key ring and database).
 */
const probeRoutes: RoutePlugin = async (app) => {
  app.get<{ Params: { id: string } }>(
    '/v1/websites/:id/probe',
    { config: { access: { minRole: 'viewer', access: 'read', resource: { kind: 'website', param: 'id' } } } },
    async (request, reply) =>
      sendData(request, reply, { websiteId: request.tenant!.website!.id, role: request.tenant!.role }),
  );
  app.post<{ Params: { id: string } }>(
    '/v1/websites/:id/probe',
    { config: { access: { minRole: 'editor', access: 'mutate', resource: { kind: 'website', param: 'id' } } } },
    async (request, reply) =>
      sendData(request, reply, { websiteId: request.tenant!.website!.id, role: request.tenant!.role }),
  );
};

let a: AuthApp;
let probe: FastifyInstance;
let siteA: SeededWebsite;
let siteB: SeededWebsite;
let editor: SignedInUser;
let viewer: SignedInUser;

function addMember(organizationId: string, userId: string, role: string): void {
  a.services.controlDb
    .prepare('INSERT INTO members (organization_id, user_id, role, created_at) VALUES (?, ?, ?, ?)')
    .run(organizationId, userId, role, new Date(a.clock.now()).toISOString());
}

beforeAll(async () => {
  a = await openAuthApp();
  siteA = await seedWebsite(a.services, 'a.example');
  siteB = await seedWebsite(a.services, 'b.example');
  editor = await registerAndLogin(a, 'editor@example.com', { orgName: 'Editor Org' });
  viewer = await registerAndLogin(a, 'viewer@example.com', { orgName: 'Viewer Org' });
  addMember(siteA.organizationId, editor.userId, 'editor');
  addMember(siteA.organizationId, viewer.userId, 'viewer');
  probe = createHttpApp({ settings: a.services.config.settings, apiVersion: 'test' });
  const resolvers = {
    resolveApiKeyPrincipal: apiKeyPrincipalResolver(a.services.controlDb),
    resolveUserPrincipal: userPrincipalResolver(() => accountsContextOf(a.services)),
  };
  const routeTable: ManagementRoute[] = [];
  await probe.register(managementScope, { services: a.services, resolvers, routes: [probeRoutes], routeTable });
  await probe.ready();
}, 60_000);
afterAll(async () => {
  await probe?.close();
  await a?.close();
});

const call = (method: 'GET' | 'POST', websiteId: string, headers: Record<string, string>) =>
  injectJson(probe, { method, url: `/v1/websites/${websiteId}/probe`, headers });

describe('a user principal acts by its memberships', () => {
  it('an editor of org A reads and mutates a website of org A with its role there', async () => {
    const read = await call('GET', siteA.websiteId, bearer(editor.accessToken));
    expect(read.status).toBe(200);
    expect(read.json.data).toEqual({ websiteId: siteA.websiteId, role: 'editor' });
    expect((await call('POST', siteA.websiteId, bearer(editor.accessToken))).status).toBe(200);
  });

  it("the same editor gets 404 website.not_found reading org B's website and 403 auth.tenant_mismatch mutating it", async () => {
    expect(failure(await call('GET', siteB.websiteId, bearer(editor.accessToken)))).toBe('404 website.not_found');
    expect(failure(await call('POST', siteB.websiteId, bearer(editor.accessToken)))).toBe('403 auth.tenant_mismatch');
  });

  it("on the daemon's own routes: publishing org B's website is 403 auth.tenant_mismatch, taking down org A's node needs organization_admin (403 auth.forbidden)", async () => {
    expect(failure(await a.post(`/v1/websites/${siteB.websiteId}/publish`, {}, bearer(editor.accessToken)))).toBe(
      '403 auth.tenant_mismatch',
    );
    expect(
      failure(
        await injectJson(a.app, {
          method: 'DELETE',
          url: `/v1/websites/${siteA.websiteId}/node`,
          headers: bearer(editor.accessToken),
        }),
      ),
    ).toBe('403 auth.forbidden');
  });

  it('a viewer of org A reads but may not mutate (403 auth.forbidden)', async () => {
    expect((await call('GET', siteA.websiteId, bearer(viewer.accessToken))).status).toBe(200);
    expect(failure(await call('POST', siteA.websiteId, bearer(viewer.accessToken)))).toBe('403 auth.forbidden');
  });

  it('a platform admin (users.platform_role) stands in every organization', async () => {
    a.services.controlDb.prepare("UPDATE users SET platform_role = 'admin' WHERE id = ?").run(viewer.userId);
    try {
      const read = await call('GET', siteB.websiteId, bearer(viewer.accessToken));
      expect(read.status).toBe(200);
      expect(read.json.data.role).toBe('admin');
    } finally {
      a.services.controlDb.prepare('UPDATE users SET platform_role = NULL WHERE id = ?').run(viewer.userId);
    }
  });

  it('a membership removed takes effect on the next request (roles are read per request, not frozen in the token)', async () => {
    a.services.controlDb
      .prepare('DELETE FROM members WHERE organization_id = ? AND user_id = ?')
      .run(siteA.organizationId, viewer.userId);
    expect(failure(await call('GET', siteA.websiteId, bearer(viewer.accessToken)))).toBe('404 website.not_found');
  });

  it('API keys still resolve beside user tokens (a bearer not shaped like a JWT goes to the API-key resolver)', async () => {
    expect((await call('POST', siteA.websiteId, bearer(siteA.apiKey))).status).toBe(200);
    expect((await call('GET', siteA.websiteId, { 'x-api-key': siteA.apiKey })).status).toBe(200);
    expect(failure(await call('GET', siteA.websiteId, bearer('nk_live_00000000000000000000000000000000')))).toBe(
      '401 auth.unauthenticated',
    );
  });

  it('a JWT-shaped bearer that fails verification is 401 auth.unauthenticated, a logged-out session too', async () => {
    const [header, payload] = editor.accessToken.split('.');
    expect(failure(await call('GET', siteA.websiteId, bearer(`${header}.${payload}.c2lnbmF0dXJl`)))).toBe(
      '401 auth.unauthenticated',
    );
    const session = (await a.post('/v1/auth/login', { email: editor.email, password: 'correct-horse-battery' })).json
      .data;
    expect((await call('GET', siteA.websiteId, bearer(session.accessToken))).status).toBe(200);
    expect((await a.post('/v1/auth/logout', undefined, bearer(session.accessToken))).status).toBe(204);
    expect(failure(await call('GET', siteA.websiteId, bearer(session.accessToken)))).toBe('401 auth.unauthenticated');
  });

  it('looksLikeJwt: three base64url segments only', () => {
    expect(looksLikeJwt(editor.accessToken)).toBe(true);
    expect(looksLikeJwt('eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.')).toBe(true);
    expect(looksLikeJwt(siteA.apiKey)).toBe(false);
    expect(looksLikeJwt(siteA.connectorToken)).toBe(false);
    expect(looksLikeJwt('a.b.c.d')).toBe(false);
  });
});
